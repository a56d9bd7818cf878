/**
 * Messages as GET /messages reads them (the row and its reactions), kept by id at the version
 * they were read at. The message window reads each message's current version (migration 030's
 * triggers move it on with every change to the message or its reactions), so an entry is used
 * only while it is current, in every process sharing the database, with no invalidation to send.
 * Reading a page of twenty messages and their reactions anew was about half of the request.
 *
 * Beside a message, its JSON as the API shows it may be kept, per form of the request and under
 * the versions of the tables its other fields come from (see messageContextVersions): serializing a
 * page anew cost more than reading it from the database.
 */
import type { MessageRow } from "./messages.js";
import type { MessageReaction } from "./reactions.js";

export interface CachedMessage {
  row: MessageRow;
  reactions: MessageReaction[];
}

interface Entry {
  message: CachedMessage;
  /** The versions the kept JSON texts were made under, and the texts by form. */
  jsonContext?: string;
  json?: Map<string, Buffer>;
  size: number;
}

/** Roughly what a message holds, in characters: its texts and a share for the rest. */
function sizeOf({ row }: CachedMessage): number {
  return row.content.length + row.rendered_content.length + row.topic.length + (row.edit_history?.length ?? 0) + 200;
}

/** Bounded by the characters it holds, since one message may be 10,000 of them rendered twice over. */
export class MessageCache {
  private readonly entries = new Map<number, Entry>();
  private size = 0;

  constructor(private readonly maxChars: number) {}

  /** The message if it is kept at this version. */
  get(id: number, version: number): CachedMessage | undefined {
    return this.current(id, version)?.message;
  }

  /**
   * Keeps a message read outside any transaction (a row a transaction wrote may yet be rolled
   * back, and its version then given to another change). Oldest entry out first.
   */
  set(message: CachedMessage): void {
    this.remove(message.row.id);
    const entry: Entry = { message, size: sizeOf(message) };
    this.entries.set(message.row.id, entry);
    this.grow(entry.size);
  }

  /** The JSON text kept for the message at this version, in this form, under this context. */
  json(id: number, version: number, context: string, form: string): Buffer | undefined {
    const entry = this.current(id, version);
    return entry?.jsonContext === context ? entry.json!.get(form) : undefined;
  }

  /** Keeps a kept message's JSON text; texts kept under another context are dropped. */
  keepJson(id: number, version: number, context: string, form: string, json: Buffer): void {
    const entry = this.current(id, version);
    if (!entry) return;
    if (entry.jsonContext !== context) {
      for (const text of entry.json?.values() ?? []) this.resize(entry, -text.length);
      entry.jsonContext = context;
      entry.json = new Map();
    }
    const replaced = entry.json!.get(form);
    entry.json!.set(form, json);
    this.resize(entry, json.length - (replaced?.length ?? 0));
  }

  private current(id: number, version: number): Entry | undefined {
    const entry = this.entries.get(id);
    return entry?.message.row.version === version ? entry : undefined;
  }

  private resize(entry: Entry, by: number): void {
    entry.size += by;
    this.grow(by);
  }

  private grow(by: number): void {
    this.size += by;
    while (this.size > this.maxChars) this.remove(this.entries.keys().next().value!);
  }

  private remove(id: number): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.size -= entry.size;
  }
}
