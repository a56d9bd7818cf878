/** Avatars and the organization's icon and logos: uploading, removing, and who hears of it. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import type { UploadedFile } from "../files/multipart.js";
import { badRequest } from "../http/errors.js";
import { isAdmin } from "../domain/roles.js";
import type { Realm } from "../store/realms.js";
import { getRealm, updateRealmRow } from "../store/realms.js";
import { activeRealmUserIds, type UserRow } from "../store/users.js";
import {
  AVATAR_FROM_GRAVATAR,
  AVATAR_FROM_USER,
  MAX_AVATAR_FILE_SIZE_MIB,
  avatarStorageKeys,
  avatarUrl,
  checkImageUpload,
  makeAvatarImages,
  makeIconImage,
  makeLogoImage,
  type AvatarImages,
} from "../media/avatars.js";
import { realmImageChange, realmImageData, realmImageKey, realmImageUrl, type RealmImageKind } from "../media/realm_images.js";
import { sendUserUpdate } from "./user_admin.js";
import { sendBotUpdate } from "./bots.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

/** Zulip's avatar_changes_disabled(realm): the server setting or the organization's; administrators are exempt. */
function checkAvatarChangesAllowed(caller: Caller): void {
  if (caller.realm.props.avatar_changes_disabled && !isAdmin(caller.user.role)) {
    throw badRequest("Avatar changes are disabled in this organization.");
  }
}

/** The upload checked and resized before any transaction: the image work never holds the database. */
export async function prepareAvatar(files: UploadedFile[], what = "avatar"): Promise<AvatarImages> {
  return makeAvatarImages(checkImageUpload(files, what, MAX_AVATAR_FILE_SIZE_MIB));
}

/**
 * Zulip's do_change_avatar_fields: a new version (so every URL changes), the files of an upload
 * stored under it, and the new URLs to everyone who can see the user (and a bot's administrators).
 * Files of a version that is rolled back are overwritten by the next attempt, which takes the
 * same version; the previous version's files go once the change has committed.
 */
export async function changeAvatarInTx(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  target: UserRow,
  images: AvatarImages | null,
): Promise<UserRow> {
  const source = images ? AVATAR_FROM_USER : AVATAR_FROM_GRAVATAR;
  // Incremented by the database, so concurrent changes each get their own version.
  await tx
    .updateTable("users")
    .set((eb) => ({ avatar_source: source, avatar_version: eb("avatar_version", "+", 1) }))
    .where("id", "=", target.id)
    .execute();
  const row = await tx.selectFrom("users").selectAll().where("id", "=", target.id).executeTakeFirstOrThrow();
  if (images) {
    const keys = avatarStorageKeys(realm.id, row.id, row.avatar_version);
    await Promise.all([app.files.put(keys.small, images.small), app.files.put(keys.medium, images.medium), app.files.put(keys.original, images.original)]);
  }
  if (target.avatar_source === AVATAR_FROM_USER) {
    const old = avatarStorageKeys(realm.id, target.id, target.avatar_version);
    events.afterCommit(() => {
      for (const key of Object.values(old)) void app.files.delete(key).catch(() => {});
    });
  }
  await sendUserUpdate(tx, events, realm, row, {
    avatar_source: row.avatar_source,
    avatar_url: avatarUrl(row),
    avatar_url_medium: avatarUrl(row, true),
    avatar_version: row.avatar_version,
  });
  if (row.is_bot === 1) await sendBotUpdate(tx, events, realm, row, { avatar_url: avatarUrl(row) });
  return row;
}

/** A user created with an uploaded avatar (a bot from POST /bots): source "U" at the first version, before anyone is told of them. */
export async function storeNewUserAvatar(app: AppContext, tx: Tx, user: UserRow, images: AvatarImages): Promise<UserRow> {
  await tx.updateTable("users").set({ avatar_source: AVATAR_FROM_USER }).where("id", "=", user.id).execute();
  const keys = avatarStorageKeys(user.realm_id, user.id, user.avatar_version);
  await Promise.all([app.files.put(keys.small, images.small), app.files.put(keys.medium, images.medium), app.files.put(keys.original, images.original)]);
  return { ...user, avatar_source: AVATAR_FROM_USER };
}

/** POST /users/me/avatar, in Zulip's order of checks. */
export async function doSetAvatar(app: AppContext, caller: Caller, files: UploadedFile[]): Promise<{ avatar_url: string }> {
  if (files.length !== 1) throw badRequest("You must upload exactly one avatar.");
  checkAvatarChangesAllowed(caller);
  const images = await prepareAvatar(files);
  const row = await runAction(app, async (tx, events) => {
    const me = await tx.selectFrom("users").selectAll().where("id", "=", caller.user.id).executeTakeFirstOrThrow();
    return changeAvatarInTx(app, tx, events, caller.realm, me, images);
  });
  return { avatar_url: avatarUrl(row) };
}

/** DELETE /users/me/avatar: back to Gravatar; nothing changes for a user already there. */
export async function doDeleteAvatar(app: AppContext, caller: Caller): Promise<{ avatar_url: string }> {
  checkAvatarChangesAllowed(caller);
  const row = await runAction(app, async (tx, events) => {
    const me = await tx.selectFrom("users").selectAll().where("id", "=", caller.user.id).executeTakeFirstOrThrow();
    return me.avatar_source === AVATAR_FROM_USER ? changeAvatarInTx(app, tx, events, caller.realm, me, null) : me;
  });
  return { avatar_url: avatarUrl(row) };
}

const REALM_IMAGE_NAMES: Record<RealmImageKind, string> = { icon: "icon", logo: "logo", night_logo: "logo" };

/**
 * Uploading (`image` given) or removing the organization's icon or a logo (administrators only,
 * by the routes' guard): a new version in the organization's settings, and a realm update_dict
 * event to everyone.
 */
async function changeRealmImage(app: AppContext, caller: Caller, kind: RealmImageKind, image: Buffer | null): Promise<Realm> {
  return runAction(app, async (tx, events) => {
    const realm = (await getRealm(tx, caller.realm.id))!;
    const props = { ...realm.props, ...realmImageChange(realm, kind, image !== null) };
    await updateRealmRow(tx, realm.id, { props: JSON.stringify(props) });
    const updated: Realm = { ...realm, props };
    if (image) await app.files.put(realmImageKey(realm.id, kind), image);
    events.send({
      realmId: realm.id,
      event: { type: "realm", op: "update_dict", property: kind, data: realmImageData(updated, kind) },
      userIds: await activeRealmUserIds(tx, realm.id),
    });
    return updated;
  });
}

/** POST /realm/icon and POST /realm/logo (`night` for the dark theme's). */
export async function doUploadRealmImage(app: AppContext, caller: Caller, kind: RealmImageKind, files: UploadedFile[]) {
  const file = checkImageUpload(files, REALM_IMAGE_NAMES[kind], MAX_AVATAR_FILE_SIZE_MIB);
  const image = kind === "icon" ? await makeIconImage(file) : await makeLogoImage(file);
  const realm = await changeRealmImage(app, caller, kind, image);
  return kind === "icon" ? { icon_url: realmImageUrl(realm, kind) } : {};
}

/** DELETE /realm/icon and DELETE /realm/logo: back to the default. */
export async function doDeleteRealmImage(app: AppContext, caller: Caller, kind: RealmImageKind) {
  const realm = await changeRealmImage(app, caller, kind, null);
  return kind === "icon" ? { icon_url: realmImageUrl(realm, kind) } : {};
}
