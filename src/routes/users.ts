import { endpoint } from "../http/endpoint.js";
import { P, type Zod } from "../http/params.js";
import type { z } from "zod";
import { requireRealmAdmin } from "../http/guards.js";
import { ROLE_CODES } from "../domain/roles.js";
import { doDeactivateOwnUser, doDeactivateUser, doReactivateUser, doUpdateUser } from "../actions/user_admin.js";
import {
  accessUserByEmail,
  accessUserById,
  doCreateUserByApi,
  ownUserForApi,
  userForApi,
  usersForApi,
} from "../actions/users.js";

const roleSchema = (z: Zod) =>
  z.union(ROLE_CODES.map((code) => z.literal(code)) as unknown as [z.ZodLiteral<number>, z.ZodLiteral<number>]);
const profileDataSchema = (z: Zod) =>
  z.array(z.object({ id: z.int(), value: z.union([z.string(), z.array(z.int()), z.null()]) }));
const USER = "/users/:user_id(^\\d+$)";

const displayParams = {
  client_gravatar: P.bool().default(true),
  include_custom_profile_fields: P.bool().default(false),
};
const displayOptions = (p: { client_gravatar: boolean; include_custom_profile_fields: boolean }) => ({
  clientGravatar: p.client_gravatar,
  includeCustomProfileFields: p.include_custom_profile_fields,
});

/** PATCH /users/{user_id} and PATCH /users/{email} take the same changes. */
const updateUserParams = {
  full_name: P.string().optional(),
  new_email: P.string().optional(),
  profile_data: P.json(profileDataSchema).optional(),
  role: P.json(roleSchema).optional(),
};
const updateUserChanges = (p: { full_name?: string; new_email?: string; profile_data?: z.infer<ReturnType<typeof profileDataSchema>>; role?: number }) => ({
  fullName: p.full_name,
  role: p.role,
  profileData: p.profile_data,
  newEmail: p.new_email,
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

  // No role is required up front: administering a user (or one's own bot) is checked per target.
  endpoint({
    method: "PATCH",
    path: USER,
    params: updateUserParams,
    handler: async ({ app, caller, path }, p) => doUpdateUser(app, caller, path.user_id as number, updateUserChanges(p)),
  }),

  // The user is found as GET /users/{email} finds them; what the caller may change is checked as by id.
  endpoint({
    method: "PATCH",
    path: "/users/:email",
    params: updateUserParams,
    handler: async ({ app, caller, path }, p) =>
      doUpdateUser(app, caller, (await accessUserByEmail(app, caller, String(path.email))).id, updateUserChanges(p)),
  }),

  endpoint({
    method: "DELETE",
    path: "/users/me",
    params: {},
    handler: async ({ app, caller }) => doDeactivateOwnUser(app, caller),
  }),

  endpoint({
    method: "DELETE",
    path: USER,
    // Zulip emails the comment to the user; Confab sends no email, so it is accepted and dropped.
    params: { deactivation_notification_comment: P.string({ maxLength: 2000 }).optional() },
    handler: async ({ app, caller, path }) => doDeactivateUser(app, caller, path.user_id as number),
  }),

  endpoint({
    method: "POST",
    path: `${USER}/reactivate`,
    params: {},
    handler: async ({ app, caller, path }) => doReactivateUser(app, caller, path.user_id as number),
  }),
];
