import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import { LIMITS } from "../domain/limits.js";
import {
  doCreateChannelFolder,
  doReorderChannelFolders,
  doUpdateChannelFolder,
  listChannelFoldersForApi,
} from "../actions/channel_folders.js";

const name = () => P.string({ maxLength: LIMITS.maxChannelFolderNameLength });
const description = () => P.string({ maxLength: LIMITS.maxChannelFolderDescriptionLength });

export const channelFolderRoutes = [
  endpoint({
    method: "POST",
    path: "/channel_folders/create",
    guard: requireRealmAdmin,
    params: { description: description(), name: name() },
    handler: async ({ app, caller }, p) => ({
      channel_folder_id: await doCreateChannelFolder(app, caller, p.name, p.description),
    }),
  }),

  endpoint({
    method: "GET",
    path: "/channel_folders",
    params: { include_archived: P.bool().default(false) },
    handler: async ({ app, caller }, p) => ({ channel_folders: await listChannelFoldersForApi(app, caller, p.include_archived) }),
  }),

  endpoint({
    method: "PATCH",
    path: "/channel_folders",
    guard: requireRealmAdmin,
    params: { order: P.intList() },
    handler: async ({ app, caller }, p) => doReorderChannelFolders(app, caller, p.order),
  }),

  endpoint({
    method: "PATCH",
    path: "/channel_folders/:channel_folder_id(^\\d+$)",
    guard: requireRealmAdmin,
    params: { description: description().optional(), is_archived: P.bool().optional(), name: name().optional() },
    handler: async ({ app, caller, path }, p) =>
      doUpdateChannelFolder(app, caller, path.channel_folder_id as number, {
        name: p.name,
        description: p.description,
        isArchived: p.is_archived,
      }),
  }),
];
