import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { notFound } from "../http/errors.js";
import {
  deleteSavedSnippet,
  getOwnSavedSnippet,
  insertSavedSnippet,
  listSavedSnippets,
  updateSavedSnippet,
  type SavedSnippetRow,
} from "../store/saved_snippets.js";
import type { Executor } from "../store/schema.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

export interface ApiSavedSnippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}

const formatSavedSnippet = (s: SavedSnippetRow): ApiSavedSnippet => ({
  id: s.id,
  title: s.title,
  content: s.content,
  date_created: Number(s.date_created),
});

const snippetNotFound = () => notFound("Saved snippet does not exist.");

function sendSnippetEvent(events: PendingEvents, caller: Caller, event: Record<string, unknown>): void {
  events.send({ realmId: caller.realm.id, event: { type: "saved_snippets", ...event }, userIds: [caller.user.id] });
}

async function ownSnippetOrFail(tx: Tx, caller: Caller, id: number): Promise<SavedSnippetRow> {
  const snippet = await getOwnSavedSnippet(tx, caller.user.id, id);
  if (!snippet) throw snippetNotFound();
  return snippet;
}

export async function getSavedSnippets(db: Executor, userId: number): Promise<ApiSavedSnippet[]> {
  return (await listSavedSnippets(db, userId)).map(formatSavedSnippet);
}

/** Title and content arrive stripped and within their limits. */
export async function doCreateSavedSnippet(app: AppContext, caller: Caller, title: string, content: string): Promise<number> {
  return runAction(app, async (tx, events) => {
    const snippet = await insertSavedSnippet(tx, {
      realm_id: caller.realm.id,
      user_id: caller.user.id,
      title,
      content,
      date_created: Math.floor(app.clock.now()),
    });
    sendSnippetEvent(events, caller, { op: "add", saved_snippet: formatSavedSnippet(snippet) });
    return snippet.id;
  });
}

/** Asking to change nothing succeeds at once, without looking the snippet up and without an event. */
export async function doEditSavedSnippet(
  app: AppContext,
  caller: Caller,
  id: number,
  changes: { title?: string; content?: string },
): Promise<void> {
  if (changes.title === undefined && changes.content === undefined) return;
  await runAction(app, async (tx, events) => {
    await ownSnippetOrFail(tx, caller, id);
    const updated = await updateSavedSnippet(tx, id, changes);
    sendSnippetEvent(events, caller, { op: "update", saved_snippet: formatSavedSnippet(updated) });
  });
}

export async function doDeleteSavedSnippet(app: AppContext, caller: Caller, id: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    await ownSnippetOrFail(tx, caller, id);
    await deleteSavedSnippet(tx, id);
    sendSnippetEvent(events, caller, { op: "remove", saved_snippet_id: id });
  });
}

/** The `saved_snippets` section of POST /register. */
export async function savedSnippetsRegisterState(db: Executor, userId: number): Promise<{ saved_snippets: ApiSavedSnippet[] }> {
  return { saved_snippets: await getSavedSnippets(db, userId) };
}
