/** POST /messages/{id}/report: Notification Bot tells the moderators in their request channel. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { reportContent, reportTopic, type ReportPerson, type ReportType, type ReportedMessage } from "../domain/message_report.js";
import { effectiveTopicsPolicy } from "../domain/topics.js";
import { dmKeyUserIds } from "../store/messages.js";
import { getStream } from "../store/streams.js";
import { getNotificationBot, getUserById, type UserRow } from "../store/users.js";
import { accessMessage, normalizeContent, sendMessageInTx } from "./messages.js";
import { runAction } from "./run.js";

const person = (u: Pick<UserRow, "id" | "full_name">): ReportPerson => ({ id: u.id, fullName: u.full_name });

export async function doReportMessage(app: AppContext, caller: Caller, messageId: number, type: ReportType, description: string): Promise<void> {
  const { realm, user } = caller;
  if (type === "other" && description === "") throw badRequest("An explanation is required.");
  await runAction(app, async (tx, events) => {
    const channelId = realm.props.moderation_request_channel_id;
    const channel = channelId > 0 ? await getStream(tx, realm.id, channelId) : undefined;
    if (!channel || channel.is_archived) throw badRequest("Moderation request channel must be specified to enable message reporting.");
    const { message } = await accessMessage(app, tx, user, messageId);
    const sender = (await getUserById(tx, realm.id, message.sender_id))!;
    const reported: ReportedMessage = { id: message.id, content: message.content, dateSent: Number(message.date_sent), sender: person(sender) };
    if (message.stream_id !== null) {
      const stream = (await getStream(tx, realm.id, message.stream_id))!;
      reported.channel = { id: stream.id, name: stream.name, topic: message.topic };
    } else {
      const ids = dmKeyUserIds(message.dm_key!);
      const rows = await tx.selectFrom("users").select(["id", "full_name"]).where("realm_id", "=", realm.id).where("id", "in", ids).orderBy("id").execute();
      reported.participants = rows.map(person);
    }
    const content = normalizeContent(reportContent(app.config.externalUrl, person(user), reported, type, description));
    const topic = reportTopic(reported.sender, effectiveTopicsPolicy(realm.props.topics_policy, channel.topics_policy));
    const bot = await getNotificationBot(tx, realm.id);
    await sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream: channel, topic }, content, {
      clientName: "Internal",
      readBySender: false,
    });
  });
}
