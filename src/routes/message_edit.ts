import { endpoint } from "../http/endpoint.js";
import { P } from "../http/params.js";
import { PROPAGATE_MODES } from "../domain/message_edit.js";
import { deleteMessage, editMessage } from "../actions/message_edit.js";
import { getMessageHistory } from "../actions/message_history.js";

const MESSAGE_PATH = "/messages/:message_id(^\\d+$)";

export const messageEditRoutes = [
  endpoint({
    method: "PATCH",
    path: MESSAGE_PATH,
    params: {
      stream_id: P.int({ min: 0 }).optional(),
      topic: P.string().alias("subject").optional(),
      propagate_mode: P.oneOf(PROPAGATE_MODES).default("change_one"),
      send_notification_to_old_thread: P.bool().default(false),
      send_notification_to_new_thread: P.bool().default(true),
      content: P.string().optional(),
      prev_content_sha256: P.string().optional(),
    },
    handler: async ({ app, caller, path }, p) =>
      editMessage(app, caller.user, path.message_id as number, {
        streamId: p.stream_id,
        topic: p.topic,
        propagateMode: p.propagate_mode,
        sendNotificationToOldThread: p.send_notification_to_old_thread,
        sendNotificationToNewThread: p.send_notification_to_new_thread,
        content: p.content,
        prevContentSha256: p.prev_content_sha256,
      }),
  }),
  endpoint({
    method: "DELETE",
    path: MESSAGE_PATH,
    params: {},
    handler: async ({ app, caller, path }) => deleteMessage(app, caller.user, path.message_id as number),
  }),
  endpoint({
    method: "GET",
    path: `${MESSAGE_PATH.replace("$)", ")")}/history`,
    params: { allow_empty_topic_name: P.bool().default(false) },
    handler: async ({ app, caller, path }, p) => ({
      message_history: await getMessageHistory(app, caller, path.message_id as number, p.allow_empty_topic_name),
    }),
  }),
];
