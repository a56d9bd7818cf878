import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireRealmAdmin } from "../http/guards.js";
import {
  accessUserByEmail,
  accessUserById,
  doCreateUserByApi,
  ownUserForApi,
  userForApi,
  usersForApi,
} from "../actions/users.js";

const displayParams = {
  client_gravatar: P.bool().default(true),
  include_custom_profile_fields: P.bool().default(false),
};
const displayOptions = (p: { client_gravatar: boolean; include_custom_profile_fields: boolean }) => ({
  clientGravatar: p.client_gravatar,
  includeCustomProfileFields: p.include_custom_profile_fields,
});

export const userRoutes = [
  endpoint({
    method: "GET",
    path: "/users",
    params: { ...displayParams, user_ids: P.intList().optional() },
    handler: async ({ app, caller }, p) => ({
      members: await usersForApi(app, caller, { ...displayOptions(p), userIds: p.user_ids }),
    }),
  }),

  endpoint({
    method: "POST",
    path: "/users",
    guard: requireRealmAdmin,
    params: { email: P.string(), full_name: P.string(), password: P.string() },
    handler: async ({ app, caller }, p) => ({
      user_id: await doCreateUserByApi(app, caller, { email: p.email, fullName: p.full_name, password: p.password }),
    }),
  }),

  endpoint({
    method: "GET",
    path: "/users/me",
    params: {},
    handler: async ({ app, caller }) => ownUserForApi(app, caller),
  }),

  endpoint({
    method: "GET",
    path: "/users/:user_id(^\\d+$)",
    params: displayParams,
    handler: async ({ app, caller, path }, p) => ({
      user: await userForApi(app, caller, await accessUserById(app, caller, path.user_id as number), displayOptions(p)),
    }),
  }),

  endpoint({
    method: "GET",
    path: "/users/:email",
    params: displayParams,
    handler: async ({ app, caller, path }, p) => ({
      user: await userForApi(app, caller, await accessUserByEmail(app, caller, String(path.email)), displayOptions(p)),
    }),
  }),
];
