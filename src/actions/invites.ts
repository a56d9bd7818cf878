/**
 * Email invitations and reusable invitation links, checked in Zulip's order. Invitation emails
 * are queued in the outbox with the invitations, and sent once they are committed.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { StreamRow } from "../store/streams.js";
import type { UserGroupRow } from "../store/user_groups.js";
import { defaultStreamIds, getStream } from "../store/streams.js";
import { getNamedGroup } from "../store/user_groups.js";
import { getUserByDeliveryEmail, getUserById } from "../store/users.js";
import { isStorableId } from "../store/ids.js";
import {
  activeMultiuseInvites,
  getEmailInvite,
  getMultiuseInvite,
  insertEmailInvite,
  insertMultiuseInvite,
  inviteEmailsSentSince,
  lockRealmRow,
  pendingEmailInvites,
  recordInviteEmailsSent,
  setEmailInviteStatus,
  setMultiuseInviteStatus,
  type EmailInviteRow,
  type MultiuseInviteRow,
} from "../store/invites.js";
import { badRequest, invitationFailed, ownerRequired, type InvitationErrorEntry } from "../http/errors.js";
import { isAdmin } from "../domain/roles.js";
import {
  INVITE_STATUS,
  accountTooNewToInvite,
  emailAddressProblem,
  exceedsDailyLimit,
  existingAccountProblem,
  expiryDate,
  inviteRoleRefusal,
  manageInviteRefusal,
  parseInviteeEmails,
  type InviteRoleRefusal,
  type RealmEmailPolicy,
} from "../domain/invites.js";
import { cannotAddSubscribers, hasContentAccess, type UserFacts } from "../domain/channel_access.js";
import { userGroupDeactivated } from "../domain/group_setting_value.js";
import { invalidUserGroup } from "./group_settings.js";
import { channelFacts, subscribedChannelIds, userFacts } from "./channel_context.js";
import { generateConfirmationKey } from "../security/credentials.js";
import { queueOutboxJob } from "../outbound/outbox.js";

export interface InviteOptions {
  groupIds: number[] | undefined;
  includeRealmDefaultSubscriptions: boolean;
  inviteAs: number;
  /** null = never expires. */
  expiresInMinutes: number | null;
  streamIds: number[];
  welcomeMessageCustomText: string | undefined;
}

export interface SendInvitesRequest extends InviteOptions {
  inviteeEmails: string;
  notifyReferrerOnJoin: boolean;
}

const DAY = 86400;

/** Where a confirmation key's sign-up page lives. */
export const joinUrl = (app: AppContext, key: string) => `${app.config.externalUrl.replace(/\/+$/, "")}/join/${key}/`;

function throwRoleRefusal(refusal: InviteRoleRefusal): void {
  if (refusal === "owner_required") throw ownerRequired();
  // Zulip raises a plain error here, not the decorator's UNAUTHORIZED_PRINCIPAL one.
  if (refusal === "admin_required") throw badRequest("Must be an organization administrator");
}

function requireRealmPermission(facts: UserFacts, realm: Realm, setting: string): void {
  if (!facts.groups.has(realm.groupSettings[setting])) throw badRequest("Insufficient permission");
}

/** Zulip's access_streams_for_invite: readable channels; default channels need no subscribing permission. */
async function accessStreamsForInvite(app: AppContext, tx: Tx, caller: Caller, facts: UserFacts, streamIds: number[]): Promise<StreamRow[]> {
  const subscribed = await subscribedChannelIds(app, tx, caller.user.id);
  const streams: StreamRow[] = [];
  for (const id of streamIds) {
    const stream = await getStream(tx, caller.realm.id, id);
    if (!stream || stream.is_archived === 1 || !hasContentAccess(facts, channelFacts(stream), subscribed.has(stream.id))) {
      throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
    }
    if (!streams.some((s) => s.id === stream.id)) streams.push(stream);
  }
  const defaults = await defaultStreamIds(tx, caller.realm.id);
  const needPermission = streams.filter((s) => !defaults.has(s.id)).map(channelFacts);
  if (cannotAddSubscribers(facts, needPermission, caller.realm.groupSettings.can_add_subscribers_group).length) {
    throw badRequest("You do not have permission to subscribe other users to channels.");
  }
  return streams;
}

/** Zulip's access_user_group_for_update with the can_add_members_group permission, for each group. */
async function accessGroupsForInvite(tx: Tx, caller: Caller, facts: UserFacts, groupIds: number[]): Promise<UserGroupRow[]> {
  const groups: UserGroupRow[] = [];
  for (const id of groupIds) {
    const group = isStorableId(id) ? await getNamedGroup(tx, caller.realm.id, id) : undefined;
    if (!group) throw invalidUserGroup();
    if (group.deactivated === 1) throw userGroupDeactivated();
    if (group.is_system_group === 1) throw badRequest("Insufficient permission");
    const settings = JSON.parse(group.group_settings) as Record<string, number>;
    const allowed =
      facts.groups.has(caller.realm.groupSettings.can_manage_all_groups) ||
      facts.groups.has(settings.can_manage_group) ||
      facts.groups.has(settings.can_add_members_group);
    if (!allowed) throw badRequest("Insufficient permission");
    if (!groups.some((g) => g.id === group.id)) groups.push(group);
  }
  return groups;
}

/** The checks both kinds of invitation make after the role check: channels, groups, welcome text. */
async function checkInviteTargets(app: AppContext, tx: Tx, caller: Caller, facts: UserFacts, opts: InviteOptions) {
  const streams = await accessStreamsForInvite(app, tx, caller, facts, opts.streamIds);
  const groups = await accessGroupsForInvite(tx, caller, facts, opts.groupIds ?? []);
  if (opts.welcomeMessageCustomText !== undefined && !isAdmin(caller.user.role)) {
    throw badRequest("Must be an organization administrator");
  }
  return { streamIds: streams.map((s) => s.id), groupIds: groups.map((g) => g.id) };
}

/** The columns email invitations and reusable links share. */
function sharedColumns(opts: InviteOptions, targets: { streamIds: number[]; groupIds: number[] }, now: number) {
  return {
    invited_as: opts.inviteAs,
    include_realm_default_subscriptions: opts.includeRealmDefaultSubscriptions ? (1 as const) : (0 as const),
    welcome_message_custom_text: opts.welcomeMessageCustomText ?? null,
    stream_ids: JSON.stringify(targets.streamIds),
    group_ids: JSON.stringify(targets.groupIds),
    expiry_date: expiryDate(now, opts.expiresInMinutes),
    status: INVITE_STATUS.ACTIVE,
    confirmation_key: generateConfirmationKey(),
  };
}

/** `invites_changed` to the organization's administrators (bots included) and the invitation's creator. */
export async function sendInvitesChanged(db: Executor, events: PendingEvents, realmId: number, referrerId: number | null): Promise<void> {
  const admins = await db
    .selectFrom("users")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("is_active", "=", 1)
    .where("role", "<=", 200)
    .execute();
  const ids = new Set(admins.map((a) => a.id));
  if (referrerId !== null) ids.add(referrerId);
  events.send({ realmId, event: { type: "invites_changed" }, userIds: [...ids].sort((a, b) => a - b) });
}

/** This server has no per-organization domain list, so a restricted organization admits no domain. */
export function realmEmailPolicy(realm: Realm): RealmEmailPolicy {
  return {
    emailsRestrictedToDomains: realm.props.emails_restricted_to_domains,
    disallowDisposableEmailAddresses: realm.props.disallow_disposable_email_addresses,
    domains: [],
  };
}

const DAILY_LIMIT_MESSAGE =
  "To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.";

/** Zulip's check_invite_limit, with the limit this server is configured with. */
async function checkDailyLimit(tx: Tx, app: AppContext, realmId: number, requested: number): Promise<void> {
  await lockRealmRow(tx, app.dialect, realmId);
  const sent = await inviteEmailsSentSince(tx, realmId, app.clock.now() - DAY);
  if (exceedsDailyLimit(requested, sent, app.config.invitesDailyLimit)) {
    throw invitationFailed(DAILY_LIMIT_MESSAGE, [], { sentInvitations: false, dailyLimitReached: true });
  }
}

function invitationEmailText(realm: Realm, referrerName: string, url: string, expiry: number | null): string {
  const until = expiry === null ? "This invitation does not expire." : `This invitation expires on ${new Date(expiry * 1000).toUTCString()}.`;
  return [
    "Hi there,",
    "",
    `${referrerName} invited you to join ${realm.name}, a Zulip organization.`,
    "",
    "To choose your name and password and get started, open this link:",
    "",
    url,
    "",
    until,
    "",
  ].join("\n");
}

async function queueInvitation(app: AppContext, tx: Tx, events: PendingEvents, realm: Realm, invite: EmailInviteRow, referrerName: string): Promise<void> {
  await queueOutboxJob(app, tx, events, "email", {
    to: invite.email,
    subject: `${referrerName} invited you to join ${realm.name}`,
    text: invitationEmailText(realm, referrerName, joinUrl(app, invite.confirmation_key), invite.expiry_date),
  });
}

/** POST /invites. Invalid addresses stop everything; existing accounts are skipped and reported. */
export async function doSendInvites(app: AppContext, caller: Caller, req: SendInvitesRequest): Promise<void> {
  const realm = caller.realm;
  const { skipped } = await runAction(app, async (tx, events) => {
    const facts = await userFacts(app, tx, caller.user);
    requireRealmPermission(facts, realm, "can_invite_users_group");
    throwRoleRefusal(inviteRoleRefusal(req.inviteAs, caller.user.role));
    if (req.inviteeEmails === "") throw badRequest("You must specify at least one email address.");
    const emails = parseInviteeEmails(req.inviteeEmails);
    const targets = await checkInviteTargets(app, tx, caller, facts, req);

    await checkDailyLimit(tx, app, realm.id, emails.length);
    const now = app.clock.now();
    if (accountTooNewToInvite({ inviteRequired: realm.props.invite_required, role: caller.user.role, dateJoined: Number(caller.user.date_joined), now })) {
      throw invitationFailed(
        "Your account is too new to send invites for this organization. Ask an organization admin, or a more experienced user.",
        [],
        { sentInvitations: false },
      );
    }

    const policy = realmEmailPolicy(realm);
    const errors: InvitationErrorEntry[] = [];
    const valid: string[] = [];
    for (const email of emails) {
      const problem = emailAddressProblem(email, policy);
      if (problem) errors.push([email, problem, false]);
      else valid.push(email);
    }
    const skipped: InvitationErrorEntry[] = [];
    const invitees: string[] = [];
    for (const email of valid) {
      const existing = await getUserByDeliveryEmail(tx, realm.id, email);
      const problem = existingAccountProblem(email, existing && { isActive: existing.is_active === 1 });
      if (problem) skipped.push([email, ...problem]);
      else invitees.push(email);
    }
    if (errors.length) {
      throw invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped], {
        sentInvitations: false,
      });
    }
    if (skipped.length === emails.length) {
      throw invitationFailed("We weren't able to invite anyone.", skipped, { sentInvitations: false });
    }

    const created: EmailInviteRow[] = [];
    for (const email of invitees) {
      created.push(
        await insertEmailInvite(tx, {
          realm_id: realm.id,
          email,
          referred_by_id: caller.user.id,
          multiuse_invite_id: null,
          notify_referrer_on_join: req.notifyReferrerOnJoin ? 1 : 0,
          invited_at: Math.floor(now),
          created_user_id: null,
          ...sharedColumns(req, targets, now),
        }),
      );
    }
    await recordInviteEmailsSent(tx, realm.id, created.length, now);
    for (const invite of created) await queueInvitation(app, tx, events, realm, invite, caller.user.full_name);
    await sendInvitesChanged(tx, events, realm.id, caller.user.id);
    return { created, skipped };
  });

  if (skipped.length) {
    throw invitationFailed(
      "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
      skipped,
      { sentInvitations: true },
    );
  }
}

const noSuchInvitation = () => badRequest("No such invitation");

/** Zulip's access_invite_by_id; a revoked invitation no longer exists for the API. */
async function accessEmailInvite(db: Executor, caller: Caller, inviteId: number): Promise<EmailInviteRow> {
  const invite = await getEmailInvite(db, inviteId);
  if (!invite || invite.realm_id !== caller.realm.id || invite.referred_by_id === null || invite.status === INVITE_STATUS.REVOKED) {
    throw noSuchInvitation();
  }
  if (invite.referred_by_id !== caller.user.id) throwRoleRefusal(manageInviteRefusal(invite.invited_as, caller.user.role));
  return invite;
}

function formatEmailInvite(invite: EmailInviteRow) {
  return {
    email: invite.email,
    invited_by_user_id: invite.referred_by_id,
    invited: Number(invite.invited_at),
    expiry_date: invite.expiry_date === null ? null : Number(invite.expiry_date),
    id: invite.id,
    invited_as: invite.invited_as,
    is_multiuse: false,
    notify_referrer_on_join: invite.notify_referrer_on_join === 1,
  };
}

function formatMultiuseInvite(app: AppContext, invite: MultiuseInviteRow) {
  return {
    invited_by_user_id: invite.referred_by_id,
    invited: Number(invite.date_created),
    expiry_date: invite.expiry_date === null ? null : Number(invite.expiry_date),
    id: invite.id,
    link_url: joinUrl(app, invite.confirmation_key),
    invited_as: invite.invited_as,
    is_multiuse: true,
  };
}

/** GET /invites: administrators manage every invitation, others their own. */
export async function listInvites(app: AppContext, caller: Caller) {
  const now = app.clock.now();
  const onlyMine = isAdmin(caller.user.role) ? undefined : caller.user.id;
  const emailInvites = await pendingEmailInvites(app.db, caller.realm.id, now, onlyMine);
  const links = await activeMultiuseInvites(app.db, caller.realm.id, now, onlyMine);
  return [...emailInvites.map(formatEmailInvite), ...links.map((l) => formatMultiuseInvite(app, l))];
}

/** DELETE /invites/{invite_id}. */
export async function revokeEmailInvite(app: AppContext, caller: Caller, inviteId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const invite = await accessEmailInvite(tx, caller, inviteId);
    await setEmailInviteStatus(tx, invite.id, INVITE_STATUS.REVOKED);
    await sendInvitesChanged(tx, events, caller.realm.id, invite.referred_by_id);
  });
}

/** POST /invites/{invite_id}/resend: the same link again, counted against the daily limit. */
export async function resendEmailInvite(app: AppContext, caller: Caller, inviteId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const invite = await accessEmailInvite(tx, caller, inviteId);
    await checkDailyLimit(tx, app, caller.realm.id, 1);
    await recordInviteEmailsSent(tx, caller.realm.id, 1, app.clock.now());
    const referrer = await getUserById(tx, caller.realm.id, invite.referred_by_id!);
    await queueInvitation(app, tx, events, caller.realm, invite, referrer!.full_name);
  });
}

/** POST /invites/multiuse: returns the link. */
export async function createInviteLink(app: AppContext, caller: Caller, opts: InviteOptions): Promise<string> {
  return runAction(app, async (tx, events) => {
    const facts = await userFacts(app, tx, caller.user);
    requireRealmPermission(facts, caller.realm, "create_multiuse_invite_group");
    throwRoleRefusal(inviteRoleRefusal(opts.inviteAs, caller.user.role));
    const targets = await checkInviteTargets(app, tx, caller, facts, opts);
    const now = app.clock.now();
    const invite = await insertMultiuseInvite(tx, {
      realm_id: caller.realm.id,
      referred_by_id: caller.user.id,
      date_created: Math.floor(now),
      ...sharedColumns(opts, targets, now),
    });
    await sendInvitesChanged(tx, events, caller.realm.id, caller.user.id);
    return joinUrl(app, invite.confirmation_key);
  });
}

/** DELETE /invites/multiuse/{invite_id}. */
export async function revokeInviteLink(app: AppContext, caller: Caller, inviteId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    const invite = await getMultiuseInvite(tx, inviteId);
    if (!invite || invite.realm_id !== caller.realm.id) throw noSuchInvitation();
    if (invite.referred_by_id !== caller.user.id) throwRoleRefusal(manageInviteRefusal(invite.invited_as, caller.user.role));
    if (invite.status === INVITE_STATUS.REVOKED) throw badRequest("Invitation has already been revoked");
    await setMultiuseInviteStatus(tx, invite.id, INVITE_STATUS.REVOKED);
    await sendInvitesChanged(tx, events, caller.realm.id, invite.referred_by_id);
  });
}
