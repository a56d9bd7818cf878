/**
 * A user's own view of their subscriptions: per-channel settings, whether someone is subscribed,
 * and channel email addresses.
 */
import type { AppContext } from "../context.js";
import { runAction } from "./run.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { accessStreamById } from "./streams.js";
import { accessUserById } from "./users.js";
import { canAdminUser } from "./user_admin.js";
import { getRealmUser, getSystemBot, type UserRow } from "../store/users.js";
import { getSubscription } from "../store/streams.js";
import type { Executor } from "../store/schema.js";
import { channelEmailToken, setSubscriptionProperty } from "../store/subscriptions.js";
import { checkSubscriptionChange, subscriptionUpdateEvents, type SubscriptionChange } from "../domain/subscription_properties.js";
import { channelEmailAddress, newEmailToken } from "../domain/email_gateway.js";

export interface SubscriptionPropertyRequest {
  stream_id: number;
  property: string;
  value: boolean | string;
}

/**
 * POST /users/me/subscriptions/properties: every property and value is checked, then every
 * channel, before anything is stored (Zulip's order of errors); each change sends its
 * `subscription` update events to the user alone, even when the value is unchanged.
 */
export async function updateSubscriptionProperties(app: AppContext, caller: Caller, requests: SubscriptionPropertyRequest[]) {
  const checked = requests.map((r, i) => checkSubscriptionChange(i, r.property, r.value));
  return runAction(app, async (tx, events) => {
    const changes: { streamId: number; change: SubscriptionChange }[] = [];
    for (const [i, r] of requests.entries()) {
      const { stream, subscribed } = await accessStreamById(app, tx, caller.user, r.stream_id);
      if (!subscribed) throw badRequest(`Not subscribed to channel ID ${r.stream_id}`);
      changes.push({ streamId: stream.id, change: checked[i] });
    }
    for (const { streamId, change } of changes) {
      await setSubscriptionProperty(tx, caller.user.id, streamId, change.property, change.value);
      for (const event of subscriptionUpdateEvents(streamId, change)) {
        events.send({ realmId: caller.realm.id, event, userIds: [caller.user.id] });
      }
    }
  });
}

/** GET /users/{user_id}/subscriptions/{stream_id}. */
export async function subscriptionStatus(app: AppContext, caller: Caller, userId: number, streamId: number) {
  const target = await accessUserById(app, caller, userId);
  // Zulip's access_user_by_id without allow_bots or allow_deactivated.
  if (target.is_bot === 1) throw badRequest("No such user");
  if (target.is_active !== 1) throw badRequest("User is deactivated");
  const { stream } = await accessStreamById(app, app.db, caller.user, streamId, { requireContentAccess: false });
  return { is_subscribed: (await getSubscription(app.db, target.id, stream.id))?.active === 1 };
}

/** Who messages sent to a channel address appear to come from: Email Gateway, the caller, or a bot they administer. */
async function emailSender(db: Executor, caller: Caller, senderId: number | undefined): Promise<UserRow> {
  const gatewayBot = await getSystemBot(db, caller.realm.id, "emailgateway@zulip.com");
  if (senderId === undefined || senderId === gatewayBot.id) return gatewayBot;
  if (senderId === caller.user.id) return caller.user;
  const bot = await getRealmUser(db, caller.realm.id, senderId);
  if (!bot || bot.is_bot !== 1) throw badRequest("No such bot");
  if (!canAdminUser(caller.user, bot)) throw badRequest("Insufficient permission");
  return bot;
}

/** GET /streams/{stream_id}/email_address: the address, made (with its token) on first request. */
export async function streamEmailAddress(app: AppContext, caller: Caller, streamId: number, senderId: number | undefined) {
  return runAction(app, async (tx) => {
    const { stream } = await accessStreamById(app, tx, caller.user, streamId);
    const sender = await emailSender(tx, caller, senderId);
    const token = await channelEmailToken(tx, {
      realmId: caller.realm.id,
      streamId: stream.id,
      creatorId: caller.user.id,
      senderId: sender.id,
      newToken: newEmailToken(),
      now: Math.floor(app.clock.now()),
    });
    return { email: channelEmailAddress(app.config.emailGatewayPattern, stream.name, token) };
  });
}
