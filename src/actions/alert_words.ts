import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { buildAlertWordMatcher, checkAlertWordCount, cleanAlertWords, newAlertWords, type AlertWordMatcher } from "../domain/alert_words.js";
import {
  deleteAlertWordsById,
  insertAlertWords,
  listAlertWordRows,
  listAlertWords,
  loadRealmAlertWords,
} from "../store/alert_words.js";
import type { Executor } from "../store/schema.js";
import { runAction, type PendingEvents } from "./run.js";

/** Both changes tell the user's clients the whole new list, even when nothing changed. */
function sendAlertWordsEvent(events: PendingEvents, caller: Caller, words: string[]): void {
  events.send({ realmId: caller.realm.id, event: { type: "alert_words", alert_words: words }, userIds: [caller.user.id] });
}

export async function doAddAlertWords(app: AppContext, caller: Caller, requested: string[]): Promise<string[]> {
  return runAction(app, async (tx, events) => {
    const existing = await listAlertWords(tx, caller.user.id);
    const added = newAlertWords(existing, cleanAlertWords(requested));
    checkAlertWordCount(existing.length + added.length);
    await insertAlertWords(tx, caller.realm.id, caller.user.id, added);
    const words = await listAlertWords(tx, caller.user.id);
    sendAlertWordsEvent(events, caller, words);
    return words;
  });
}

/** Each word removes the user's word of any spelling; words the user does not have are ignored. */
export async function doRemoveAlertWords(app: AppContext, caller: Caller, requested: string[]): Promise<string[]> {
  return runAction(app, async (tx, events) => {
    const unwanted = new Set(requested.map((w) => w.toLowerCase()));
    const rows = await listAlertWordRows(tx, caller.user.id);
    await deleteAlertWordsById(tx, rows.filter((r) => unwanted.has(r.word.toLowerCase())).map((r) => r.id));
    const words = await listAlertWords(tx, caller.user.id);
    sendAlertWordsEvent(events, caller, words);
    return words;
  });
}

/** The `alert_words` section of POST /register. */
export async function alertWordsRegisterState(db: Executor, userId: number): Promise<{ alert_words: string[] }> {
  return { alert_words: await listAlertWords(db, userId) };
}

/**
 * The matcher for every alert word of an organization, rebuilt only when the words changed.
 * It reports any user of the organization; callers keep the message's recipients.
 */
export async function realmAlertWordMatcher(app: AppContext, db: Executor, realmId: number): Promise<AlertWordMatcher> {
  const matcher = await app.caches.alertWordMatchers.get(String(realmId), db, async () =>
    buildAlertWordMatcher(await loadRealmAlertWords(db, realmId)),
  );
  return matcher!;
}
