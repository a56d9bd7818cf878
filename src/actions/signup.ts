/**
 * Accepting an invitation: what a confirmation key leads to, creating the account it allows,
 * and turning a visit to a reusable link into an emailed sign-up link for one address.
 */
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Executor } from "../store/schema.js";
import { getRealm, type Realm } from "../store/realms.js";
import { getStream, type StreamRow } from "../store/streams.js";
import { getNamedGroup } from "../store/user_groups.js";
import { addGroupMembers } from "../store/groups.js";
import { activeRealmUserIds, getUserByDeliveryEmail, getUserById, type UserRow } from "../store/users.js";
import {
  claimEmailInvite,
  emailInviteByKey,
  idList,
  insertEmailInvite,
  inviteEmailsSentSince,
  lockRealmRow,
  multiuseInviteByKey,
  recordInviteEmailsSent,
  revokePendingInvitesFor,
  type EmailInviteRow,
  type MultiuseInviteRow,
} from "../store/invites.js";
import { badRequest } from "../http/errors.js";
import { Role } from "../domain/roles.js";
import {
  INVITE_STATUS,
  REGISTRATION_LINK_VALIDITY_SECONDS,
  emailAddressProblem,
  exceedsDailyLimit,
  existingAccountProblem,
  inviteState,
  welcomeTextFor,
  type InviteState,
} from "../domain/invites.js";
import { checkNewHumanUser, createUserInTx, notifyCreatedUser } from "./users.js";
import { subscribeUsersInTx } from "./subscriptions.js";
import { joinUrl, realmEmailPolicy, sendInvitesChanged } from "./invites.js";
import { announceSignupInTx, notifyReferrerInTx, sendWelcomeMessagesInTx } from "./onboarding.js";
import { generateConfirmationKey } from "../security/credentials.js";
import { queueOutboxJob } from "../outbound/outbox.js";

export type Unavailable = Exclude<InviteState, "active"> | "not_found";

/** The key names no usable invitation; the sign-up page explains which case it is. */
export class JoinUnavailable extends Error {
  constructor(
    readonly reason: Unavailable,
    readonly realm?: Realm,
  ) {
    super(reason);
  }
}

export type JoinTarget =
  | { kind: "invitation"; realm: Realm; invite: EmailInviteRow }
  | { kind: "link"; realm: Realm; link: MultiuseInviteRow };

async function resolveKey(db: Executor, app: AppContext, key: string): Promise<JoinTarget> {
  const invite = await emailInviteByKey(db, key);
  const link = invite ? undefined : await multiuseInviteByKey(db, key);
  const row = invite ?? link;
  if (!row) throw new JoinUnavailable("not_found");
  const realm = await getRealm(db, row.realm_id);
  if (!realm || realm.deactivated) throw new JoinUnavailable("not_found");
  const state = inviteState(row, app.clock.now());
  if (state !== "active") throw new JoinUnavailable(state, realm);
  return invite ? { kind: "invitation", realm, invite } : { kind: "link", realm, link: link! };
}

/** What the page at /join/<key>/ offers; throws JoinUnavailable when the key is no good. */
export async function lookupJoinKey(app: AppContext, key: string): Promise<JoinTarget> {
  return resolveKey(app.db, app, key);
}

async function addToInvitedGroups(tx: Tx, events: PendingEvents, realm: Realm, user: UserRow, groupIds: number[]): Promise<void> {
  for (const id of groupIds) {
    const group = await getNamedGroup(tx, realm.id, id);
    if (!group || group.deactivated === 1) continue;
    await addGroupMembers(tx, group.id, [user.id]);
    events.send({
      realmId: realm.id,
      event: { type: "user_group", op: "add_members", group_id: group.id, user_ids: [user.id] },
      userIds: await activeRealmUserIds(tx, realm.id),
    });
  }
}

/** The invited channels that still exist, plus the organization's default channels when asked for. */
async function invitedStreams(tx: Tx, realm: Realm, invite: EmailInviteRow): Promise<StreamRow[]> {
  const ids = new Set(idList(invite.stream_ids));
  if (invite.include_realm_default_subscriptions === 1) {
    const defaults = await tx.selectFrom("default_streams").select("stream_id").where("realm_id", "=", realm.id).execute();
    defaults.forEach((d) => ids.add(d.stream_id));
  }
  const streams: StreamRow[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    const stream = await getStream(tx, realm.id, id);
    if (stream && stream.is_archived === 0) streams.push(stream);
  }
  return streams;
}

export interface RegistrationForm {
  fullName: string;
  password: string;
}

/**
 * Creates the invited account with the invited role, channels and groups, and lets the system
 * bots say what Zulip's say when someone joins.
 */
export async function registerFromInvitation(app: AppContext, key: string, form: RegistrationForm): Promise<{ realm: Realm; user: UserRow }> {
  return runAction(app, async (tx, events) => {
    const target = await resolveKey(tx, app, key);
    if (target.kind !== "invitation") throw new JoinUnavailable("not_found");
    const { realm, invite } = target;
    const input = { email: invite.email, fullName: form.fullName, password: form.password, role: invite.invited_as };
    const fullName = await checkNewHumanUser(tx, realm, input);
    const user = await createUserInTx(tx, app, realm, { ...input, fullName });
    if (!(await claimEmailInvite(tx, invite.id, user.id))) throw new JoinUnavailable("used", realm);
    await revokePendingInvitesFor(tx, realm.id, invite.email);

    await notifyCreatedUser(tx, app, events, realm, user);
    await subscribeUsersInTx(tx, app, events, realm, [user], await invitedStreams(tx, realm, invite));
    await addToInvitedGroups(tx, events, realm, user, idList(invite.group_ids));

    if (invite.referred_by_id !== null) {
      const referrer = await getUserById(tx, realm.id, invite.referred_by_id);
      if (referrer && referrer.is_active === 1 && invite.notify_referrer_on_join === 1) {
        await notifyReferrerInTx(tx, app, events, realm, referrer, user);
      }
      await sendInvitesChanged(tx, events, realm.id, invite.referred_by_id);
    }
    await announceSignupInTx(tx, app, events, realm, user);
    await sendWelcomeMessagesInTx(tx, app, events, realm, user, welcomeTextFor(invite.welcome_message_custom_text, realm.props.welcome_message_custom_text));
    return { realm, user };
  });
}

/**
 * Someone opened a reusable link and gave their address: they get a sign-up link of their own
 * by email, carrying the link's role, channels, groups and welcome text.
 */
export async function requestRegistrationByLink(app: AppContext, key: string, rawEmail: string): Promise<{ realm: Realm; email: string }> {
  const email = rawEmail.trim();
  const realm = await runAction(app, async (tx, events) => {
    const target = await resolveKey(tx, app, key);
    if (target.kind !== "link") throw new JoinUnavailable("not_found");
    const { realm, link } = target;
    const problem =
      emailAddressProblem(email, realmEmailPolicy(realm)) ??
      existingAccountProblem(email, await existingAccount(tx, realm, email))?.[0];
    if (problem) throw badRequest(problem);
    const now = app.clock.now();
    // Sign-up emails from a link spend the organization's daily budget of invitation emails.
    await lockRealmRow(tx, app.dialect, realm.id);
    if (exceedsDailyLimit(1, await inviteEmailsSentSince(tx, realm.id, now - 86400), app.config.invitesDailyLimit)) {
      throw badRequest("This organization has sent too many emails today. Please try again tomorrow.");
    }
    await recordInviteEmailsSent(tx, realm.id, 1, now);
    const invite = await insertEmailInvite(tx, {
      realm_id: realm.id,
      email,
      referred_by_id: null,
      multiuse_invite_id: link.id,
      invited_as: link.invited_as,
      include_realm_default_subscriptions: link.include_realm_default_subscriptions,
      notify_referrer_on_join: 0,
      welcome_message_custom_text: link.welcome_message_custom_text,
      stream_ids: link.stream_ids,
      group_ids: link.group_ids,
      invited_at: Math.floor(now),
      expiry_date: Math.floor(now + REGISTRATION_LINK_VALIDITY_SECONDS),
      status: INVITE_STATUS.ACTIVE,
      created_user_id: null,
      confirmation_key: generateConfirmationKey(),
    });
    await queueRegistrationLink(app, tx, events, realm, invite);
    return realm;
  });
  return { realm, email };
}

async function queueRegistrationLink(app: AppContext, tx: Tx, events: PendingEvents, realm: Realm, invite: EmailInviteRow): Promise<void> {
  const text = [
    "Hi there,",
    "",
    `To finish joining ${realm.name}, choose your name and password here:`,
    "",
    joinUrl(app, invite.confirmation_key),
    "",
    "This link expires in 24 hours. If you did not ask to join, you can ignore this email.",
    "",
  ].join("\n");
  await queueOutboxJob(app, tx, events, "email", { to: invite.email, subject: `Confirm your email address to join ${realm.name}`, text });
}

async function existingAccount(tx: Tx, realm: Realm, email: string) {
  const user = await getUserByDeliveryEmail(tx, realm.id, email);
  return user && { isActive: user.is_active === 1 };
}

/** The role names the sign-up page shows. */
export const ROLE_NAMES: Record<number, string> = {
  [Role.OWNER]: "organization owner",
  [Role.ADMINISTRATOR]: "organization administrator",
  [Role.MODERATOR]: "moderator",
  [Role.MEMBER]: "member",
  [Role.GUEST]: "guest",
};
