/**
 * Muting users: the muted user's messages become read for the muter, now and from then on
 * (see sendMessageInTx), and the muter's clients get the new list.
 */
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { getUserById, type UserRow } from "../store/users.js";
import { canAccessUser } from "../store/user_access.js";
import { addMute, isMuted, markReadFromSender, mutedUsersOf, mutingUserIds, removeMute } from "../store/muted_users.js";
import type { Executor } from "../store/schema.js";

/**
 * Zulip's access_user_by_id_including_cross_realm, allowing bots (system bots too) and
 * deactivated users.
 */
async function accessMutable(tx: Tx, caller: Caller, userId: number): Promise<UserRow> {
  const target = await getUserById(tx, caller.realm.id, userId);
  if (!target) throw badRequest("No such user");
  if (target.is_bot === 0 && !(await canAccessUser(tx, caller.realm, caller.user.id, target.id))) {
    throw badRequest("Insufficient permission");
  }
  return target;
}

async function sendMutedUsers(tx: Tx, events: PendingEvents, caller: Caller) {
  events.send({
    realmId: caller.realm.id,
    event: { type: "muted_users", muted_users: await mutedUsersOf(tx, caller.user.id) },
    userIds: [caller.user.id],
  });
}

/** POST /users/me/muted_users/{muted_user_id}. */
export async function muteUser(app: AppContext, caller: Caller, mutedUserId: number) {
  if (mutedUserId === caller.user.id) throw badRequest("Cannot mute self");
  return runAction(app, async (tx, events) => {
    const target = await accessMutable(tx, caller, mutedUserId);
    if (await isMuted(tx, caller.user.id, target.id)) throw badRequest("User already muted");
    await addMute(tx, caller.user.id, target.id, Math.floor(app.clock.now()));
    const read = await markReadFromSender(tx, caller.user.id, target.id);
    if (read.length) {
      events.send({
        realmId: caller.realm.id,
        event: { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: read, all: false },
        userIds: [caller.user.id],
      });
    }
    await sendMutedUsers(tx, events, caller);
  });
}

/** DELETE /users/me/muted_users/{muted_user_id}: messages marked read while muted stay read. */
export async function unmuteUser(app: AppContext, caller: Caller, mutedUserId: number) {
  return runAction(app, async (tx, events) => {
    const target = await accessMutable(tx, caller, mutedUserId);
    if (!(await isMuted(tx, caller.user.id, target.id))) throw badRequest("User is not muted");
    await removeMute(tx, caller.user.id, target.id);
    await sendMutedUsers(tx, events, caller);
  });
}

/** The `muted_users` section of POST /register. */
export async function mutedUsersRegisterState(db: Executor, userId: number) {
  return { muted_users: await mutedUsersOf(db, userId) };
}

/** The users who muted `userId`, from the cache. */
export async function usersMuting(app: AppContext, db: Executor, userId: number): Promise<readonly number[]> {
  return (await app.caches.mutingUsers.get(String(userId), db, async () => Object.freeze(await mutingUserIds(db, userId))))!;
}
