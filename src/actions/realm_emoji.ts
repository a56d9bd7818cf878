/** Custom emoji: adding, deactivating, and how clients see them. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest, notFound } from "../http/errors.js";
import type { Executor } from "../store/schema.js";
import type { UploadedFile } from "../files/multipart.js";
import { groupsOfUser } from "../store/groups.js";
import { activeRealmUserIds } from "../store/users.js";
import {
  deactivateRealmEmoji,
  findActiveRealmEmoji,
  insertRealmEmoji,
  listRealmEmoji,
  setRealmEmojiFileName,
  type RealmEmojiRow,
} from "../store/realm_emoji.js";
import { hasGroupPermission, permissionConfigOf } from "../domain/group_setting_value.js";
import { REALM_PERMISSION_SETTINGS } from "../domain/permission_settings.js";
import { isAdmin } from "../domain/roles.js";
import {
  checkEmojiImage,
  checkEmojiName,
  emojiFileName,
  emojiStorageKey,
  emojiUrl,
  normalizeEmojiName,
} from "../domain/custom_emoji.js";
import { uploadContentType, uploadedFileName } from "../domain/uploads.js";
import { emojiCodeForName } from "../markdown/emoji.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

export interface ApiRealmEmoji {
  id: string;
  name: string;
  source_url: string;
  still_url: string | null;
  deactivated: boolean;
  author_id: number | null;
}

function formatRealmEmoji(row: RealmEmojiRow): ApiRealmEmoji {
  const stillName = row.file_name.replace(/\.[^.]*$/, "") + ".png";
  return {
    id: String(row.id),
    name: row.name,
    source_url: emojiUrl(row.realm_id, row.file_name),
    still_url: row.is_animated === 1 ? `/user_avatars/${row.realm_id}/emoji/images/still/${stillName}` : null,
    deactivated: row.deactivated === 1,
    author_id: row.author_id,
  };
}

/** Every custom emoji of the organization, deactivated ones included, keyed by id. */
export async function realmEmojiDict(db: Executor, realmId: number): Promise<Record<string, ApiRealmEmoji>> {
  return Object.fromEntries((await listRealmEmoji(db, realmId)).map((r) => [String(r.id), formatRealmEmoji(r)]));
}

async function notifyRealmEmoji(tx: Tx, events: PendingEvents, realmId: number): Promise<void> {
  events.send({
    realmId,
    event: { type: "realm_emoji", op: "update", realm_emoji: await realmEmojiDict(tx, realmId) },
    userIds: await activeRealmUserIds(tx, realmId),
  });
}

/** POST /realm/emoji/{emoji_name}, in Zulip's order of checks. */
export async function doAddRealmEmoji(app: AppContext, caller: Caller, rawName: string, files: UploadedFile[]): Promise<void> {
  const { realm, user } = caller;
  const name = normalizeEmojiName(rawName);
  checkEmojiName(name);
  const setting = "can_add_custom_emoji_group";
  const groups = await groupsOfUser(app.db, realm.id, user.id);
  if (!hasGroupPermission(user, groups, realm.groupSettings[setting], permissionConfigOf(REALM_PERMISSION_SETTINGS[setting]))) {
    throw badRequest("Insufficient permission");
  }
  if (await findActiveRealmEmoji(app.db, realm.id, name)) throw badRequest("A custom emoji with this name already exists.");
  if (files.length !== 1) throw badRequest("You must upload exactly one file.");
  if (emojiCodeForName(name) !== undefined && !isAdmin(user.role)) {
    throw badRequest("Only administrators can override built-in emoji.");
  }
  const [file] = files;
  const maxMib = app.config.maxEmojiFileSizeMib;
  if (file.truncated || file.data.length > maxMib * 1024 * 1024) {
    throw badRequest(`Uploaded file is larger than the allowed limit of ${maxMib} MiB`);
  }
  const imageType = checkEmojiImage(file.data, uploadContentType(file.mimeType, uploadedFileName(file.fileName)));

  let storedKey: string | undefined;
  try {
    await runAction(app, async (tx, events) => {
      // Checked again inside the transaction: two uploads of one name may race.
      if (await findActiveRealmEmoji(tx, realm.id, name)) throw badRequest("A custom emoji with this name already exists.");
      const row = await insertRealmEmoji(tx, { realm_id: realm.id, name, author_id: user.id, file_name: "" });
      const fileName = emojiFileName(app.uploadTokenKey, row.id, imageType);
      await setRealmEmojiFileName(tx, row.id, fileName);
      storedKey = emojiStorageKey(realm.id, fileName);
      await app.files.put(storedKey, file.data);
      await notifyRealmEmoji(tx, events, realm.id);
    });
  } catch (err) {
    if (storedKey) await app.files.delete(storedKey);
    throw err;
  }
}

/** DELETE /realm/emoji/{emoji_name}: deactivates; administrators or the emoji's author. */
export async function doRemoveRealmEmoji(app: AppContext, caller: Caller, name: string): Promise<void> {
  const { realm, user } = caller;
  await runAction(app, async (tx, events) => {
    const emoji = await findActiveRealmEmoji(tx, realm.id, name);
    if (!emoji) throw notFound(`Emoji '${name}' does not exist`);
    if (!isAdmin(user.role) && emoji.author_id !== user.id) {
      throw badRequest("Must be an organization administrator or emoji author");
    }
    await deactivateRealmEmoji(tx, emoji.id);
    await notifyRealmEmoji(tx, events, realm.id);
  });
}
