import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { addReaction, removeReaction } from "../actions/reactions.js";

const PATH = "/messages/:message_id(^\\d+$)/reactions";

export const reactionRoutes = [
  endpoint({
    method: "POST",
    path: PATH,
    params: { emoji_name: P.string(), emoji_code: P.string().optional(), reaction_type: P.string().optional() },
    handler: async ({ app, caller, path }, p) => {
      await addReaction(app, caller.user, path.message_id as number, {
        emojiName: p.emoji_name,
        emojiCode: p.emoji_code,
        reactionType: p.reaction_type,
      });
    },
  }),

  endpoint({
    method: "DELETE",
    path: PATH,
    params: { emoji_name: P.string().optional(), emoji_code: P.string().optional(), reaction_type: P.string().optional() },
    handler: async ({ app, caller, path }, p) => {
      await removeReaction(app, caller.user, path.message_id as number, {
        emojiName: p.emoji_name,
        emojiCode: p.emoji_code,
        reactionType: p.reaction_type,
      });
    },
  }),
];
