/**
 * Mail to the gateway, turned into messages as Zulip's email mirror does: a reply to a
 * notification email goes, as the user it was sent to, into the conversation of the message
 * it was about; a mail to a channel address goes into the channel, the subject its topic.
 *
 * Refusals are `GatewayRefusal`s carrying the SMTP reply, so the sending server bounces the
 * mail (5xx) or tries again later (4xx) instead of the mail vanishing.
 */
import type { ParsedMail } from "mailparser";
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { StreamRow } from "../store/streams.js";
import type { MessageRow } from "../store/messages.js";
import { ZulipError } from "../http/errors.js";
import { getRealm } from "../store/realms.js";
import { getNotificationBot, getSystemBot, getUserById } from "../store/users.js";
import { dmKeyUserIds, getMessage } from "../store/messages.js";
import { runAction } from "../actions/run.js";
import { findChannel } from "../actions/streams.js";
import { checkMayPost, checkMessage, defaultReadBySender, normalizeContent, sendMessageInTx, type MessageTarget } from "../actions/messages.js";
import { doUploadFile } from "../actions/uploads.js";
import { LIMITS } from "../domain/limits.js";
import { isPrintable, truncateContent } from "../domain/text.js";
import { effectiveTopicsPolicy, truncateTopic } from "../domain/topics.js";
import { decodeChannelAddressPart, gatewayAddressPart, isReplyToken, type ChannelAddressOptions } from "../domain/email_gateway.js";
import { isForwardedSubject, stripFooter, stripQuotedReply, stripSubjectPrefixes } from "./quotes.js";
import { htmlToMarkdown } from "./html.js";

/** An SMTP reply refusing a recipient or a mail: code, then text starting with the enhanced status code. */
export class GatewayRefusal extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

const badAddress = (why: string) => new GatewayRefusal(550, `5.1.1 Bad destination mailbox address: ${why}`);
const permissionDenied = (why: string) => new GatewayRefusal(550, `5.7.1 Permission denied: ${why}`);
const unusable = (why: string) => new GatewayRefusal(550, `5.6.0 ${why}`);
export const tooBig = (why: string) => new GatewayRefusal(552, `5.3.4 ${why}`);

const EMAIL_GATEWAY_BOT = "emailgateway@zulip.com";
/** Zulip posts mail through its "Internal" client. */
const CLIENT = "Internal";

/** Text beyond this is never read: the message keeps 10,000 characters, and quotes and signatures are found well before. */
const MAX_TEXT_CHARS = 100_000;
/** HTML is larger than its text; beyond this it is not converted. */
const MAX_HTML_CHARS = 512 * 1024;

interface ReplyDestination {
  kind: "reply";
  addressId: number;
  realm: Realm;
  user: UserRow;
  message: MessageRow;
}

interface ChannelDestination {
  kind: "channel";
  realm: Realm;
  stream: StreamRow;
  /** Who the message appears to come from. */
  sender: UserRow;
  /** Whose right to post decides: the address's creator when it posts as the Email Gateway bot. */
  poster: UserRow;
  options: ChannelAddressOptions;
}

type Destination = ReplyDestination | ChannelDestination;

/** What an address stands for, or the bounce for an address the gateway does not know. */
async function resolve(app: AppContext, db: Executor, address: string): Promise<Destination> {
  const pattern = app.config.emailGatewayPattern;
  if (!pattern) throw badAddress("This server is not configured for incoming email.");
  const part = gatewayAddressPart(pattern, address);
  if (part === null) throw badAddress("Address not recognized by gateway.");
  if (isReplyToken(part)) {
    const row = await db.selectFrom("email_reply_addresses").selectAll().where("email_token", "=", part).executeTakeFirst();
    const user = row && (await db.selectFrom("users").selectAll().where("id", "=", row.user_id).executeTakeFirst());
    const realm = user && (await getRealm(db, user.realm_id));
    const message = realm && (await getMessage(db, realm.id, row.message_id));
    // A deactivated user's addresses answer as unknown ones do: nothing is posted as them.
    if (!row || !user || user.is_active !== 1 || !realm || realm.deactivated || !message) {
      throw badAddress("Zulip notification reply address is invalid.");
    }
    return { kind: "reply", addressId: row.id, realm, user, message };
  }
  const { token, options } = decodeChannelAddressPart(part);
  const row = await db.selectFrom("channel_email_addresses").selectAll().where("email_token", "=", token).executeTakeFirst();
  const realm = row && (await getRealm(db, row.realm_id));
  const stream = realm && (await findChannel(app, db, realm.id, row.stream_id));
  const sender = realm && (await getUserById(db, realm.id, row.sender_id));
  if (!row || !realm || realm.deactivated || !stream || !sender) throw badAddress(`Bad stream token from email recipient ${address}`);
  const gatewayBot = await getSystemBot(db, realm.id, EMAIL_GATEWAY_BOT);
  const creator = row.creator_id === null ? undefined : await getUserById(db, realm.id, row.creator_id);
  const poster = sender.id === gatewayBot.id && creator ? creator : sender;
  return { kind: "channel", realm, stream, sender, poster, options };
}

/** The channel a reply goes to, when the notification was about a channel message. */
async function replyChannel(app: AppContext, db: Executor, dest: ReplyDestination): Promise<StreamRow | undefined> {
  if (dest.message.stream_id === null) return undefined;
  const stream = await findChannel(app, db, dest.realm.id, dest.message.stream_id);
  if (!stream) throw permissionDenied("Invalid channel ID");
  return stream;
}

/** Refuses a destination its poster may not post to (direct messages are checked when the mail comes, as Zulip does). */
async function checkAccess(app: AppContext, db: Executor, dest: Destination): Promise<void> {
  try {
    if (dest.kind === "channel") await checkMayPost(app, db, dest.poster, dest.stream);
    else {
      const stream = await replyChannel(app, db, dest);
      if (stream) await checkMayPost(app, db, dest.user, stream);
    }
  } catch (err) {
    if (err instanceof ZulipError) throw permissionDenied(err.msg);
    throw err;
  }
}

/**
 * RCPT TO: whether the gateway takes mail for this address. Mail to channel addresses counts
 * against the organization's limit (reply addresses are one person answering, not a system
 * sending); past it the sender is told to try again later.
 */
export async function checkRecipient(app: AppContext, address: string): Promise<void> {
  const dest = await resolve(app, app.db, address);
  if (dest.kind === "channel") {
    const decision = await app.rateLimiter.hit("email_mirror_by_realm", dest.realm.string_id);
    if (decision?.limited) throw new GatewayRefusal(450, "4.7.0 Rate-limited due to too many emails on this realm.");
  }
  await checkAccess(app, app.db, dest);
}

/** Why a mail was taken without posting anything (Zulip drops these too); undefined when it was posted. */
export type Dropped = "auto-submitted" | undefined;

/** DATA: posts the mail for one recipient the RCPT check accepted. */
export async function deliverMail(app: AppContext, address: string, mail: ParsedMail): Promise<Dropped> {
  const dest = await resolve(app, app.db, address);
  return dest.kind === "reply" ? deliverReply(app, dest, mail) : deliverToChannel(app, dest, mail);
}

async function deliverReply(app: AppContext, dest: ReplyDestination, mail: ParsedMail): Promise<Dropped> {
  // Answering an autoresponder's mail would start a loop of mail between the two.
  const autoSubmitted = String(mail.headers.get("auto-submitted") ?? "").trim().toLowerCase();
  if (autoSubmitted === "auto-replied" || autoSubmitted === "auto-generated") return "auto-submitted";
  const { realm, user, message } = dest;
  const content = await composeContent(app, mail, { realm, sender: user, subject: message.topic, options: {} });
  try {
    await runAction(app, async (tx, events) => {
      await tx.updateTable("email_reply_addresses").set((eb) => ({ times_used: eb("times_used", "+", 1) })).where("id", "=", dest.addressId).execute();
      const stream = await replyChannel(app, tx, dest);
      let target: MessageTarget;
      if (stream) {
        await checkMayPost(app, tx, user, stream);
        target = { kind: "stream", stream, topic: message.topic };
      } else {
        const participants = dmKeyUserIds(message.dm_key ?? String(message.sender_id));
        // A one-on-one conversation is answered to the other person; a group, to everyone in it.
        const recipients = participants.length > 2 ? participants : [message.sender_id];
        target = (await checkMessage(app, tx, realm, user, { kind: "direct", recipients }, content)).target;
      }
      await sendMessageInTx(tx, app, events, realm, user, target, content, { clientName: CLIENT, readBySender: defaultReadBySender(CLIENT) });
    });
  } catch (err) {
    if (!(err instanceof ZulipError)) throw err;
    if (message.stream_id === null) throw permissionDenied(err.msg);
    // The reply was written in good faith: its author hears in Zulip why it was not posted.
    await tellUserOfFailedReply(app, dest, err.msg);
  }
  return undefined;
}

async function tellUserOfFailedReply(app: AppContext, dest: ReplyDestination, why: string): Promise<void> {
  await runAction(app, async (tx, events) => {
    const stream = await findChannel(app, tx, dest.realm.id, dest.message.stream_id!);
    const bot = await getNotificationBot(tx, dest.realm.id);
    const text = `Error sending message to channel ${stream?.name ?? ""} via message notification email reply:\n${why}`;
    await sendMessageInTx(tx, app, events, dest.realm, bot, { kind: "direct", recipients: [dest.user] }, normalizeContent(text), {
      clientName: CLIENT,
      readBySender: defaultReadBySender(CLIENT),
    });
  });
}

async function deliverToChannel(app: AppContext, dest: ChannelDestination, mail: ParsedMail): Promise<Dropped> {
  const { realm, stream, sender } = dest;
  const rawSubject = mail.subject ?? "";
  const options = { ...dest.options };
  // A forwarded mail's quote is what is being shared.
  options.includeQuotes ??= isForwardedSubject(rawSubject);
  const subject = [...stripSubjectPrefixes(rawSubject)].filter(isPrintable).join("");
  let topic: string;
  let subjectInBody = false;
  if (effectiveTopicsPolicy(realm.props.topics_policy, stream.topics_policy) === "empty_topic_only") {
    topic = "";
    subjectInBody = true;
  } else topic = truncateTopic(subject === "" ? "Email with no subject" : subject);
  const content = await composeContent(app, mail, { realm, sender, subject, options, subjectInBody });
  try {
    await runAction(app, async (tx, events) => {
      await checkAccess(app, tx, dest);
      await sendMessageInTx(tx, app, events, realm, sender, { kind: "stream", stream, topic }, content, {
        clientName: CLIENT,
        readBySender: defaultReadBySender(CLIENT),
      });
    });
  } catch (err) {
    if (err instanceof ZulipError) throw permissionDenied(err.msg);
    throw err;
  }
  return undefined;
}

interface Composition {
  realm: Realm;
  /** Who posts: the attachments are uploaded as them. */
  sender: UserRow;
  subject: string;
  options: ChannelAddressOptions;
  subjectInBody?: boolean;
}

/** The mail's text part, or its HTML part as Markdown, without quotes unless asked for. */
export function extractBody(mail: Pick<ParsedMail, "text" | "html">, includeQuotes: boolean, preferText: boolean): string {
  const text = mail.text === undefined ? undefined : mail.text.slice(0, MAX_TEXT_CHARS);
  const plain = text === undefined ? undefined : includeQuotes ? text : stripQuotedReply(text);
  const html =
    typeof mail.html === "string"
      ? (() => {
          const markdown = htmlToMarkdown(mail.html.slice(0, MAX_HTML_CHARS), includeQuotes);
          return includeQuotes ? markdown : stripQuotedReply(markdown);
        })()
      : undefined;
  if (plain === undefined && html === undefined) throw unusable("Unable to find plaintext or HTML message body");
  if (!plain && !html) throw unusable("Email has no nonempty body sections; ignoring.");
  return preferText ? plain || html! : html || plain!;
}

/** Square brackets would end a Markdown link's text early. */
const linkText = (name: string) => name.replace(/([[\]\\])/g, "\\$1");

/**
 * The message: an optional From/Subject preamble, the body, then links to the attachments
 * (uploaded as the sender). The body is cut so that the links always fit.
 */
async function composeContent(app: AppContext, mail: ParsedMail, c: Composition): Promise<string> {
  let body = extractBody(mail, c.options.includeQuotes ?? false, c.options.preferText ?? true).replaceAll("\u0000", "");
  if (!c.options.includeFooter) body = stripFooter(body);
  if (!body.endsWith("\n")) body += "\n";
  if (body.trim() === "") body = "(No email body)";

  let preamble = "";
  if (c.options.showSender) preamble = `**From:** ${mail.from?.text ?? ""}\n`;
  if (c.subjectInBody) preamble += `**Subject:** ${c.subject}\n`;
  if (preamble) preamble += "\n";

  const links = await uploadAttachments(app, mail, c);
  const postamble = links.length ? `\n${links.join("\n")}` : "";
  body = truncateContent(body, LIMITS.maxMessageLength - preamble.length - postamble.length, "\n[message truncated]");
  try {
    return normalizeContent(preamble + body + postamble);
  } catch (err) {
    if (err instanceof ZulipError) throw unusable(err.msg);
    throw err;
  }
}

/** Refuses a mail with an attachment over the upload limit before anything of it is stored. */
export function checkAttachmentSizes(app: AppContext, mail: ParsedMail): void {
  const maxBytes = app.config.maxFileUploadSizeMib * 1024 * 1024;
  const large = mail.attachments.find((a) => a.filename && a.content.length > maxBytes);
  if (large) {
    throw tooBig(`Attachment ${large.filename} is larger than this server's configured maximum upload size (${app.config.maxFileUploadSizeMib} MiB).`);
  }
}

async function uploadAttachments(app: AppContext, mail: ParsedMail, c: Composition): Promise<string[]> {
  checkAttachmentSizes(app, mail);
  const links: string[] = [];
  for (const a of mail.attachments) {
    if (!a.filename) continue;
    const { url, filename } = await doUploadFile(app, { user: c.sender, realm: c.realm, clientName: CLIENT }, [
      { fieldName: "file", fileName: a.filename, mimeType: a.contentType, data: a.content, truncated: false },
    ]);
    links.push(`[${linkText(filename)}](${url})`);
  }
  return links;
}
