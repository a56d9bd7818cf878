import { endpoint } from "../http/endpoint.js";
import { filesOf } from "../files/multipart.js";
import { doAddRealmEmoji, doRemoveRealmEmoji, realmEmojiDict } from "../actions/realm_emoji.js";

export const realmEmojiRoutes = [
  endpoint({
    method: "GET",
    path: "/realm/emoji",
    params: {},
    handler: async ({ app, caller }) => ({ emoji: await realmEmojiDict(app.db, caller.realm.id) }),
  }),

  endpoint({
    method: "POST",
    path: "/realm/emoji/:emoji_name",
    params: {},
    handler: async ({ app, caller, path, request }) => {
      await doAddRealmEmoji(app, caller, String(path.emoji_name), filesOf(request));
    },
  }),

  endpoint({
    method: "DELETE",
    path: "/realm/emoji/:emoji_name",
    params: {},
    handler: async ({ app, caller, path }) => {
      await doRemoveRealmEmoji(app, caller, String(path.emoji_name));
    },
  }),
];
