/** User statuses: a short text and an emoji, set by the user or by an administrator. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { UserRow } from "../store/users.js";
import { runAction, type Tx } from "./run.js";
import type { Executor } from "../store/schema.js";
import { badRequest } from "../http/errors.js";
import { checkEmoji, emojiForName } from "./emoji.js";
import { accessUserById, accessibleUserIds } from "./users.js";
import { accessUserForAdmin } from "./user_admin.js";
import { setPresenceEnabledInTx } from "./presence.js";
import { getUserStatus, listRealmStatuses, upsertUserStatus, type StatusChange } from "../store/user_status.js";
import { userIdsWhoCanAccess } from "../store/user_access.js";
import { formatUserStatus } from "../format/user_status.js";

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusRequest {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

/** The stored change a request asks for, checked as Zulip checks it. */
async function checkedChange(db: Executor, realmId: number, req: StatusRequest): Promise<StatusChange> {
  const change: StatusChange = {};
  if (req.statusText !== undefined) {
    change.status_text = req.statusText.trim();
    if ([...change.status_text].length > MAX_STATUS_TEXT_LENGTH) {
      throw badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
    }
  }
  if (req.away === undefined && req.statusText === undefined && req.emojiName === undefined) {
    throw badRequest("Client did not pass any new values.");
  }
  if (req.emojiName === "") {
    Object.assign(change, { emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" });
  } else if (req.emojiName !== undefined) {
    let { emojiCode, reactionType } = req;
    if (emojiCode === undefined || reactionType === undefined) {
      const named = await emojiForName(db, realmId, req.emojiName);
      emojiCode ??= named.emoji_code;
      reactionType ??= named.reaction_type;
    }
    const emoji = { emoji_name: req.emojiName, emoji_code: emojiCode, reaction_type: reactionType };
    await checkEmoji(db, realmId, emoji);
    Object.assign(change, emoji);
  } else if (req.emojiCode || req.reactionType) {
    throw badRequest("Client must pass emoji_name if they pass either emoji_code or reaction_type.");
  }
  return change;
}

async function updateStatus(app: AppContext, caller: Caller, access: (tx: Tx) => Promise<UserRow>, req: StatusRequest): Promise<void> {
  await runAction(app, async (tx, events) => {
    const target = await access(tx);
    const change = await checkedChange(tx, caller.realm.id, req);
    if (req.away !== undefined) await setPresenceEnabledInTx(app, tx, events, caller.realm, target, !req.away);
    await upsertUserStatus(tx, target.id, change, Math.floor(app.clock.now()));
    const event: Record<string, unknown> = { type: "user_status", user_id: target.id };
    if (req.away !== undefined) event.away = req.away;
    Object.assign(event, change);
    events.send({ realmId: caller.realm.id, event, userIds: await userIdsWhoCanAccess(tx, caller.realm, target) });
  });
}

/** POST /users/me/status. */
export async function doUpdateOwnStatus(app: AppContext, caller: Caller, req: StatusRequest): Promise<void> {
  await updateStatus(app, caller, async () => caller.user, req);
}

/** POST /users/{user_id}/status: an administrator sets someone else's (never `away`). */
export async function doUpdateStatusForUser(app: AppContext, caller: Caller, userId: number, req: Omit<StatusRequest, "away">): Promise<void> {
  await updateStatus(app, caller, (tx) => accessUserForAdmin(tx, caller, userId, { allowDeactivated: false, allowBots: false }), req);
}

/** GET /users/{user_id}/status. */
export async function getStatusOfUser(app: AppContext, caller: Caller, userId: number): Promise<Record<string, unknown>> {
  const target = await accessUserById(app, caller, userId);
  if (target.is_bot === 1) throw badRequest("No such user");
  if (target.is_active !== 1) throw badRequest("User is deactivated");
  return formatUserStatus(await getUserStatus(app.db, target.id));
}

/** The `user_status` register state: by user id (as a string), only users the viewer can access. */
export async function userStatusState(app: AppContext, caller: Caller): Promise<Record<string, Record<string, unknown>>> {
  const accessible = await accessibleUserIds(app, caller);
  const out: Record<string, Record<string, unknown>> = {};
  for (const row of await listRealmStatuses(app.db, caller.realm.id)) {
    if (accessible && !accessible.has(row.user_id)) continue;
    out[String(row.user_id)] = formatUserStatus(row);
  }
  return out;
}
