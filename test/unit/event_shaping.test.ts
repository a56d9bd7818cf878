import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { finalizeMessage, shapeForQueue, type QueueProfile } from "../../src/events/shaping.js";

const queue = (over: Partial<QueueProfile> = {}): QueueProfile => ({
  queueId: "q1",
  eventTypes: null,
  narrow: [],
  applyMarkdown: false,
  clientGravatar: false,
  slimPresence: false,
  capabilities: {},
  ...over,
});

const message = {
  id: 7,
  type: "stream",
  display_recipient: "Denmark",
  subject: "castle",
  sender_email: "hamlet@zulip.com",
  content: "**hi**",
  rendered_content: "<p><strong>hi</strong></p>",
  avatar_url: "https://secure.gravatar.com/avatar/abc?d=identicon&version=1",
  sender_email_address_visibility: 1,
  sender_avatar_source: "G",
};
const messageEvent = { type: "message", message, local_id: "1.5", sender_queue_id: "q1", invite_only: false };
const shape = (event: object, q: QueueProfile, extra?: object) => shapeForQueue(event as never, extra as never, q, new Map());

describe("message events", () => {
  test("apply_markdown picks the HTML or the Markdown, and internal fields are removed", () => {
    const html = finalizeMessage(message, true, false);
    assert.equal(html.content, "<p><strong>hi</strong></p>");
    assert.equal(html.content_type, "text/html");
    const md = finalizeMessage(message, false, false);
    assert.equal(md.content, "**hi**");
    assert.equal(md.content_type, "text/x-markdown");
    for (const key of ["rendered_content", "sender_email_address_visibility", "sender_avatar_source"]) {
      assert.equal(key in html, false, key);
    }
  });

  test("client_gravatar nulls a gravatar avatar only when the sender's email is public", () => {
    assert.equal(finalizeMessage(message, true, true).avatar_url, null);
    assert.equal(finalizeMessage(message, true, false).avatar_url, message.avatar_url);
    assert.equal(finalizeMessage({ ...message, sender_email_address_visibility: 3 }, true, true).avatar_url, message.avatar_url);
    assert.equal(finalizeMessage({ ...message, sender_avatar_source: "U" }, true, true).avatar_url, message.avatar_url);
  });

  test("the recipient's flags are merged and the sender's own queue gets its local id", () => {
    const [mine] = shape(messageEvent, queue(), { flags: ["read"] });
    assert.deepEqual(Object.keys(mine).sort(), ["flags", "local_message_id", "message", "type"]);
    assert.deepEqual(mine.flags, ["read"]);
    assert.equal(mine.local_message_id, "1.5");
    const [theirs] = shape(messageEvent, queue({ queueId: "q2" }));
    assert.deepEqual(theirs.flags, []);
    assert.equal("local_message_id" in theirs, false);
  });

  test("queues with the same options share one rendering", () => {
    const cache = new Map();
    const a = shapeForQueue(messageEvent, undefined, queue({ queueId: "a" }), cache)[0];
    const b = shapeForQueue(messageEvent, undefined, queue({ queueId: "b" }), cache)[0];
    const c = shapeForQueue(messageEvent, undefined, queue({ queueId: "c", applyMarkdown: true }), cache)[0];
    assert.equal(a.message, b.message);
    assert.notEqual(a.message, c.message);
  });

  test("the narrow and the event types filter message events", () => {
    assert.equal(shape(messageEvent, queue({ narrow: [["channel", "Denmark"]] })).length, 1);
    assert.equal(shape(messageEvent, queue({ narrow: [["channel", "Verona"]] })).length, 0);
    assert.equal(shape(messageEvent, queue({ narrow: [["is", "unread"]] }), { flags: ["read"] }).length, 0);
    assert.equal(shape(messageEvent, queue({ eventTypes: new Set(["presence"]) })).length, 0);
    assert.equal(shape(messageEvent, queue({ eventTypes: new Set(["message"]) })).length, 1);
  });
});

describe("presence events", () => {
  const event = {
    type: "presence",
    user_id: 5,
    email: "user5@zulip.testserver",
    server_timestamp: 1.5,
    presence: { website: { client: "website", status: "active", timestamp: 1, pushable: false } },
    presences: { "5": { active_timestamp: 1, idle_timestamp: 1 } },
  };

  test("legacy clients get the email; slim clients do not; modern clients get presences only", () => {
    assert.deepEqual(shape(event, queue()), [
      { type: "presence", user_id: 5, email: event.email, server_timestamp: 1.5, presence: event.presence },
    ]);
    assert.deepEqual(shape(event, queue({ slimPresence: true })), [
      { type: "presence", user_id: 5, server_timestamp: 1.5, presence: event.presence },
    ]);
    assert.deepEqual(shape(event, queue({ slimPresence: true, capabilities: { simplified_presence_events: true } })), [
      { type: "presence", presences: event.presences },
    ]);
  });
});

describe("other adaptations", () => {
  test("event types filter everything; muted_topics is dropped when user_topic is requested", () => {
    const e = { type: "muted_topics", muted_topics: [] };
    assert.equal(shape(e, queue({ eventTypes: new Set(["muted_topics"]) })).length, 1);
    assert.equal(shape(e, queue({ eventTypes: new Set(["muted_topics", "user_topic"]) })).length, 0);
    assert.equal(shape(e, queue()).length, 1);
  });

  test("channel typing needs stream_typing_notifications", () => {
    const e = { type: "typing", op: "start", stream_id: 1, topic: "x" };
    assert.equal(shape(e, queue()).length, 0);
    assert.equal(shape(e, queue({ capabilities: { stream_typing_notifications: true } })).length, 1);
    assert.equal(shape({ type: "typing", op: "start", recipients: [] }, queue()).length, 1);
  });

  test("legacy settings events are dropped for user_settings_object clients", () => {
    for (const type of ["update_display_settings", "update_global_notifications"]) {
      assert.equal(shape({ type }, queue({ capabilities: { user_settings_object: true } })).length, 0);
      assert.equal(shape({ type }, queue()).length, 1);
    }
  });

  test("linkifier events only reach clients that understand URL templates", () => {
    assert.equal(shape({ type: "realm_linkifiers" }, queue()).length, 0);
    assert.equal(shape({ type: "realm_linkifiers" }, queue({ capabilities: { linkifier_url_template: true } })).length, 1);
  });

  test("message deletion is split per message for clients without bulk_message_deletion", () => {
    const e = { type: "delete_message", message_ids: [3, 4], message_type: "private" };
    assert.deepEqual(shape(e, queue()), [
      { type: "delete_message", message_type: "private", message_id: 3 },
      { type: "delete_message", message_type: "private", message_id: 4 },
    ]);
    assert.deepEqual(shape(e, queue({ capabilities: { bulk_message_deletion: true } })), [e]);
  });

  test("an inaccessible new user is hidden from user_list_incomplete clients; the marker is removed", () => {
    const e = { type: "realm_user", op: "add", person: { user_id: 9 }, inaccessible_user: true };
    assert.deepEqual(shape(e, queue()), [{ type: "realm_user", op: "add", person: { user_id: 9 } }]);
    assert.equal(shape(e, queue({ capabilities: { user_list_incomplete: true } })).length, 0);
  });

  test("per-user fields are merged into other events too", () => {
    assert.deepEqual(shape({ type: "custom" }, queue(), { x: 1 }), [{ type: "custom", x: 1 }]);
  });
});
