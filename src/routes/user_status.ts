import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireHuman } from "../http/guards.js";
import { doUpdateOwnStatus, doUpdateStatusForUser, getStatusOfUser } from "../actions/user_status.js";

const USER = "/users/:user_id(^\\d+$)/status";

const emojiParams = {
  status_text: P.string().optional(),
  emoji_name: P.string().optional(),
  emoji_code: P.string().optional(),
  reaction_type: P.string().optional(),
};

export const userStatusRoutes = [
  endpoint({
    method: "POST",
    path: "/users/me/status",
    guard: requireHuman,
    params: { ...emojiParams, away: P.bool().optional() },
    handler: async ({ app, caller }, p) => {
      await doUpdateOwnStatus(app, caller, { away: p.away, statusText: p.status_text, emojiName: p.emoji_name, emojiCode: p.emoji_code, reactionType: p.reaction_type });
    },
  }),

  endpoint({
    method: "GET",
    path: USER,
    params: {},
    handler: async ({ app, caller, path }) => ({ status: await getStatusOfUser(app, caller, path.user_id as number) }),
  }),

  endpoint({
    method: "POST",
    path: USER,
    params: emojiParams,
    handler: async ({ app, caller, path }, p) => {
      await doUpdateStatusForUser(app, caller, path.user_id as number, {
        statusText: p.status_text,
        emojiName: p.emoji_name,
        emojiCode: p.emoji_code,
        reactionType: p.reaction_type,
      });
    },
  }),
];
