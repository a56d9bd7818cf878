/** Channel folders: creating, listing, reordering and changing them (administrators only). */
import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import type { Caller } from "../http/auth.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { badRequest } from "../http/errors.js";
import { activeRealmUserIds } from "../store/users.js";
import {
  channelFolderInUse,
  channelFolderNameTaken,
  getChannelFolder,
  insertChannelFolder,
  listChannelFolders,
  updateChannelFolder,
} from "../store/channel_folders.js";
import { channelFolderExists, checkChannelFolderName, folderOrderMapping } from "../domain/channel_folders.js";
import { formatChannelFolder } from "../format/channel_folders.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";

async function renderDescription(tx: Tx, app: AppContext, caller: Caller, description: string): Promise<string> {
  return renderMarkdown(description, await renderContextFor(app, caller.realm, caller.user, tx)).html;
}

/** Folder events go to every active user of the organization. */
async function sendFolderEvent(tx: Tx, events: PendingEvents, caller: Caller, event: Record<string, unknown>): Promise<void> {
  events.send({ realmId: caller.realm.id, event: { type: "channel_folder", ...event }, userIds: await activeRealmUserIds(tx, caller.realm.id) });
}

async function checkNameAvailable(tx: Tx, caller: Caller, name: string): Promise<void> {
  checkChannelFolderName(name);
  if (await channelFolderNameTaken(tx, caller.realm.id, name)) throw channelFolderExists(name);
}

/** POST /channel_folders/create; returns the new folder's id. */
export async function doCreateChannelFolder(app: AppContext, caller: Caller, name: string, description: string): Promise<number> {
  return runAction(app, async (tx, events) => {
    await checkNameAvailable(tx, caller, name);
    const folder = await unlessTaken(
      insertChannelFolder(tx, {
        realm_id: caller.realm.id,
        name,
        description,
        rendered_description: await renderDescription(tx, app, caller, description),
        date_created: Math.floor(app.clock.now()),
        creator_id: caller.user.id,
        is_archived: 0,
      }),
      () => channelFolderExists(name),
    );
    await sendFolderEvent(tx, events, caller, { op: "add", channel_folder: formatChannelFolder(folder) });
    return folder.id;
  });
}

export async function listChannelFoldersForApi(app: AppContext, caller: Caller, includeArchived: boolean) {
  return (await listChannelFolders(app.db, caller.realm.id, includeArchived)).map(formatChannelFolder);
}

/** PATCH /channel_folders: every folder, archived ones too, takes its position in `order`. */
export async function doReorderChannelFolders(app: AppContext, caller: Caller, order: number[]): Promise<void> {
  await runAction(app, async (tx, events) => {
    const folders = await listChannelFolders(tx, caller.realm.id, true);
    const mapping = folderOrderMapping(folders.map((f) => f.id), order);
    for (const [id, position] of mapping) await updateChannelFolder(tx, id, { order: position });
    await sendFolderEvent(tx, events, caller, { op: "reorder", order });
  });
}

export interface ChannelFolderChanges {
  name?: string;
  description?: string;
  isArchived?: boolean;
}

/** PATCH /channel_folders/{id}: name, description, then archived state; each real change announced. */
export async function doUpdateChannelFolder(app: AppContext, caller: Caller, folderId: number, changes: ChannelFolderChanges): Promise<void> {
  await runAction(app, async (tx, events) => {
    const folder = await getChannelFolder(tx, caller.realm.id, folderId);
    if (!folder) throw badRequest("Invalid channel folder ID");
    const announce = (data: Record<string, unknown>) => sendFolderEvent(tx, events, caller, { op: "update", channel_folder_id: folderId, data });
    if (changes.name !== undefined && changes.name !== folder.name) {
      await checkNameAvailable(tx, caller, changes.name);
      const name = changes.name;
      await unlessTaken(updateChannelFolder(tx, folderId, { name }), () => channelFolderExists(name));
      await announce({ name: changes.name });
    }
    if (changes.description !== undefined && changes.description !== folder.description) {
      const rendered = await renderDescription(tx, app, caller, changes.description);
      await updateChannelFolder(tx, folderId, { description: changes.description, rendered_description: rendered });
      await announce({ description: changes.description, rendered_description: rendered });
    }
    if (changes.isArchived !== undefined && changes.isArchived !== (folder.is_archived === 1)) {
      if (changes.isArchived && (await channelFolderInUse(tx, folderId))) {
        throw badRequest("You need to remove all the channels from this folder to archive it.");
      }
      await updateChannelFolder(tx, folderId, { is_archived: changes.isArchived ? 1 : 0 });
      await announce({ is_archived: changes.isArchived });
    }
  });
}
