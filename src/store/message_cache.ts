/**
 * Messages as GET /messages reads them (the row and its reactions), kept by id at the version
 * they were read at. The message window reads each message's current version (migration 030's
 * triggers move it on with every change to the message or its reactions), so an entry is used
 * only while it is current, in every process sharing the database, with no invalidation to send.
 * Reading a page of twenty messages and their reactions anew was about half of the request.
 */
import type { MessageRow } from "./messages.js";
import type { MessageReaction } from "./reactions.js";

export interface CachedMessage {
  row: MessageRow;
  reactions: MessageReaction[];
}

/** Roughly what an entry holds, in characters: its texts and a share for the rest. */
function sizeOf({ row }: CachedMessage): number {
  return row.content.length + row.rendered_content.length + row.topic.length + (row.edit_history?.length ?? 0) + 200;
}

/** Bounded by the characters it holds, since one message may be 10,000 of them rendered twice over. */
export class MessageCache {
  private readonly entries = new Map<number, CachedMessage>();
  private size = 0;

  constructor(private readonly maxChars: number) {}

  /** The message if it is kept at this version. */
  get(id: number, version: number): CachedMessage | undefined {
    const entry = this.entries.get(id);
    return entry?.row.version === version ? entry : undefined;
  }

  /**
   * Keeps a message read outside any transaction (a row a transaction wrote may yet be rolled
   * back, and its version then given to another change). Oldest entry out first.
   */
  set(entry: CachedMessage): void {
    this.remove(entry.row.id);
    this.entries.set(entry.row.id, entry);
    this.size += sizeOf(entry);
    while (this.size > this.maxChars) this.remove(this.entries.keys().next().value!);
  }

  private remove(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.size -= sizeOf(entry);
  }
}
