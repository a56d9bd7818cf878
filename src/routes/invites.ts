import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { requireMemberOrAdmin } from "../http/guards.js";
import { ROLE_CODES, Role } from "../domain/roles.js";
import { DEFAULT_INVITE_EXPIRES_IN_MINUTES, MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH } from "../domain/invites.js";
import {
  createInviteLink,
  doSendInvites,
  listInvites,
  resendEmailInvite,
  revokeEmailInvite,
  revokeInviteLink,
} from "../actions/invites.js";

// Declared in Zulip's parameter order, which decides which bad parameter is reported first.
const inviteParams = {
  group_ids: P.intList().optional(),
  include_realm_default_subscriptions: P.bool().default(false),
  invite_as: P.json((z) => z.int().refine((v) => ROLE_CODES.includes(v), "Not in the list of possible values")).default(Role.MEMBER),
  invite_expires_in_minutes: P.int().nullable(),
};
const welcomeText = { welcome_message_custom_text: P.string({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }).optional() };

const expiresIn = (minutes: number | null | undefined) => (minutes === undefined ? DEFAULT_INVITE_EXPIRES_IN_MINUTES : minutes);

export const inviteRoutes = [
  endpoint({
    method: "GET",
    path: "/invites",
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller }) => ({ invites: await listInvites(app, caller) }),
  }),

  endpoint({
    method: "POST",
    path: "/invites",
    guard: requireMemberOrAdmin,
    params: {
      ...inviteParams,
      invitee_emails: P.string(),
      notify_referrer_on_join: P.bool().default(true),
      stream_ids: P.intList(),
      ...welcomeText,
    },
    handler: async ({ app, caller }, p) => {
      await doSendInvites(app, caller, {
        groupIds: p.group_ids,
        includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
        inviteAs: p.invite_as,
        expiresInMinutes: expiresIn(p.invite_expires_in_minutes),
        inviteeEmails: p.invitee_emails,
        notifyReferrerOnJoin: p.notify_referrer_on_join,
        streamIds: p.stream_ids,
        welcomeMessageCustomText: p.welcome_message_custom_text,
      });
    },
  }),

  endpoint({
    method: "POST",
    path: "/invites/multiuse",
    guard: requireMemberOrAdmin,
    params: { ...inviteParams, stream_ids: P.intList().optional(), ...welcomeText },
    handler: async ({ app, caller }, p) => ({
      invite_link: await createInviteLink(app, caller, {
        groupIds: p.group_ids,
        includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
        inviteAs: p.invite_as,
        expiresInMinutes: expiresIn(p.invite_expires_in_minutes),
        streamIds: p.stream_ids ?? [],
        welcomeMessageCustomText: p.welcome_message_custom_text,
      }),
    }),
  }),

  endpoint({
    method: "DELETE",
    path: "/invites/:invite_id(^\\d+$)",
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller, path }) => revokeEmailInvite(app, caller, path.invite_id as number),
  }),

  endpoint({
    method: "POST",
    path: "/invites/:invite_id(^\\d+$)/resend",
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller, path }) => resendEmailInvite(app, caller, path.invite_id as number),
  }),

  endpoint({
    method: "DELETE",
    path: "/invites/multiuse/:invite_id(^\\d+$)",
    guard: requireMemberOrAdmin,
    params: {},
    handler: async ({ app, caller, path }) => revokeInviteLink(app, caller, path.invite_id as number),
  }),
];
