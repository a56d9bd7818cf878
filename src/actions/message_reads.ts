/** Reading about messages without changing them: read receipts, and which messages match a narrow. */
import type { AppContext } from "../context.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { readersOf } from "../store/message_flags.js";
import { userSetting } from "../format/users.js";
import { mutedUsersOf } from "../store/muted_users.js";
import { usersMuting } from "./muted_users.js";
import { badRequest } from "../http/errors.js";
import type { NarrowTerm } from "../domain/narrow.js";
import { searchWords } from "../domain/search_highlight.js";
import { accessMessage } from "./messages.js";
import { receivedMessagesMatching, searchMatch } from "./message_fetch.js";

/**
 * GET /messages/{id}/read_receipts: who has read the message, leaving out its sender, users
 * no longer active, and users who turned `send_read_receipts` off. Bots are included.
 */
export async function readReceipts(app: AppContext, user: UserRow, realm: Realm, messageId: number) {
  const { message } = await accessMessage(app, app.db, user, messageId);
  if (!realm.props.enable_read_receipts) throw badRequest("Read receipts are disabled in this organization.");
  const readers = await readersOf(app.db, message.id, message.sender_id);
  // Muting hides people both ways: whom the requester muted, and who muted the requester.
  const hidden = new Set([...(await mutedUsersOf(app.db, user.id)).map((m) => m.id), ...(await usersMuting(app, app.db, user.id))]);
  return {
    user_ids: readers.filter((u) => userSetting(u, "send_read_receipts") === true && !hidden.has(u.id)).map((u) => u.id),
  };
}

/**
 * GET /messages/matches_narrow: for each of these messages the user received that the narrow
 * matches, its content and topic with the search words highlighted. The ids come in the query
 * string, whose size the HTTP server bounds.
 */
export async function messagesMatchingNarrow(app: AppContext, user: UserRow, realm: Realm, ids: number[], narrow: NarrowTerm[]) {
  const matching = await receivedMessagesMatching(app, app.db, realm, user, narrow, ids);
  const rows = matching.length
    ? await app.db.selectFrom("messages").select(["id", "topic", "rendered_content"]).where("id", "in", matching).orderBy("id").execute()
    : [];
  const words = searchWords(narrow);
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  for (const m of rows) messages[String(m.id)] = searchMatch(m, words);
  return { messages };
}
