import { endpoint } from "../http/endpoint.js";
import { formatUser } from "../format/users.js";

export const userRoutes = [
  endpoint({
    method: "GET",
    path: "/users/me",
    params: {},
    handler: async ({ caller }) => {
      const me = caller.user;
      return { ...formatUser(me, me), is_billing_admin: false };
    },
  }),
];
