import { endpoint } from "../http/endpoint.js";
import { muteUser, unmuteUser } from "../actions/muted_users.js";

const MUTED_USER = "/users/me/muted_users/:muted_user_id(^\\d+$)";

export const mutedUserRoutes = [
  endpoint({
    method: "POST",
    path: MUTED_USER,
    params: {},
    handler: async ({ app, caller, path }) => muteUser(app, caller, path.muted_user_id as number),
  }),
  endpoint({
    method: "DELETE",
    path: MUTED_USER,
    params: {},
    handler: async ({ app, caller, path }) => unmuteUser(app, caller, path.muted_user_id as number),
  }),
];
