/**
 * Reply addresses of notification emails: a reply to one is posted, as the user the email went
 * to, into the conversation of the message it was about (see deliver.ts).
 */
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import { newReplyToken, replyEmailAddress } from "../domain/email_gateway.js";

export interface ReplyAddressKey {
  /** Who the notification email goes to, and who a reply is sent as. */
  userId: number;
  /** The message the email is about; a reply goes to its conversation. */
  messageId: number;
}

/**
 * A new reply address for one notification email, or null when no email gateway is configured
 * (the email then goes out from the no-reply address, as Zulip's does). Each email gets its own
 * address, as Zulip's create_missed_message_address makes one per email.
 */
export async function replyAddressFor(tx: Executor, app: AppContext, key: ReplyAddressKey): Promise<string | null> {
  const pattern = app.config.emailGatewayPattern;
  if (!pattern) return null;
  const token = newReplyToken();
  await tx
    .insertInto("email_reply_addresses")
    .values({ email_token: token, user_id: key.userId, message_id: key.messageId, date_created: Math.floor(app.clock.now()) })
    .execute();
  return replyEmailAddress(pattern, token);
}
