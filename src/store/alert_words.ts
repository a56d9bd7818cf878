import type { Executor } from "./schema.js";
import { preparedRead } from "./prepared.js";

/** A user's alert words, in the order they were added. */
export const listAlertWordRows: (db: Executor, userId: number) => Promise<{ id: number; word: string }[]> = preparedRead((db, userId: number) =>
  db.selectFrom("alert_words").select(["id", "word"]).where("user_id", "=", userId).orderBy("id"),
);

export async function listAlertWords(db: Executor, userId: number): Promise<string[]> {
  return (await listAlertWordRows(db, userId)).map((r) => r.word);
}

/** A word already present in any spelling is skipped, also when two requests race. */
export async function insertAlertWords(db: Executor, realmId: number, userId: number, words: readonly string[]): Promise<void> {
  for (let start = 0; start < words.length; start += 500) {
    await db
      .insertInto("alert_words")
      .values(words.slice(start, start + 500).map((word) => ({ realm_id: realmId, user_id: userId, word })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function deleteAlertWordsById(db: Executor, ids: readonly number[]): Promise<void> {
  if (ids.length) await db.deleteFrom("alert_words").where("id", "in", ids).execute();
}

/** Every alert word of the organization, by user. */
export async function loadRealmAlertWords(db: Executor, realmId: number): Promise<Map<number, string[]>> {
  const rows = await db
    .selectFrom("alert_words")
    .select(["user_id", "word"])
    .where("realm_id", "=", realmId)
    .orderBy("id")
    .execute();
  const byUser = new Map<number, string[]>();
  for (const { user_id, word } of rows) {
    const words = byUser.get(user_id);
    if (words) words.push(word);
    else byUser.set(user_id, [word]);
  }
  return byUser;
}
