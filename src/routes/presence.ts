import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { badRequest } from "../http/errors.js";
import { doUpdateUserPresence, fetchPresence } from "../actions/presence.js";
import { PRESENCE_STATUSES, modernPresence, singleUserLegacyPresence, type PresenceStatus } from "../domain/presence.js";
import { getPresence } from "../store/presence.js";
import { canAccessUser } from "../store/user_access.js";
import { getUserByApiEmail, getUserById } from "../store/users.js";

export const presenceRoutes = [
  endpoint({
    method: "POST",
    path: "/users/me/presence",
    guard: ({ caller }) => {
      if (caller.user.is_bot === 1) throw badRequest("This endpoint does not accept bot requests.");
    },
    params: {
      status: P.string(),
      ping_only: P.bool().default(false),
      new_user_input: P.bool().default(false),
      slim_presence: P.bool().default(false),
      last_update_id: P.int().optional(),
      history_limit_days: P.int().optional(),
    },
    handler: async ({ app, caller }, p) => {
      if (!PRESENCE_STATUSES.includes(p.status)) throw badRequest(`Invalid status: ${p.status}`);
      await doUpdateUserPresence(app, caller.realm, caller.user, p.status as PresenceStatus);
      if (p.ping_only) return {};
      return fetchPresence(app, caller.realm, caller.user, {
        // Sending last_update_id is how a client asks for the modern format.
        modern: p.slim_presence || p.last_update_id !== undefined,
        lastUpdateId: p.last_update_id,
        historyLimitDays: p.history_limit_days,
      });
    },
  }),

  endpoint({
    method: "GET",
    path: "/realm/presence",
    params: {},
    handler: async ({ app, caller }) => {
      const { presences, server_timestamp } = await fetchPresence(app, caller.realm, caller.user, { modern: false });
      return { presences, server_timestamp };
    },
  }),

  endpoint({
    method: "GET",
    path: "/users/:user_id_or_email/presence",
    params: { slim_presence: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => {
      const key = String(path.user_id_or_email);
      const realm = caller.realm;
      const target =
        typeof path.user_id_or_email === "number"
          ? await getUserById(app.db, realm.id, path.user_id_or_email)
          : await getUserByApiEmail(app.db, realm.id, key);
      if (!target || target.is_active !== 1) throw badRequest("No such user");
      if (target.bot_type !== null) throw badRequest("Presence is not supported for bot users.");
      if (app.config.presenceLimitedToAccessibleUsers && !(await canAccessUser(app.db, realm, caller.user.id, target.id))) {
        throw badRequest("Insufficient permission");
      }
      const times = await getPresence(app.db, target.id);
      if (!times) throw badRequest(`No presence data for ${key}`);
      const dateJoined = Number(target.date_joined);
      return {
        presence: p.slim_presence ? modernPresence(times, dateJoined) : singleUserLegacyPresence(times, dateJoined, app.clock.now()),
      };
    },
  }),
];
