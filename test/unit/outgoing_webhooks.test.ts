import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { ownerNotice, pythonRepr, readAnswer, triggeredBots, GENERIC_INTERFACE, SLACK_INTERFACE } from "../../src/domain/outgoing_webhooks.js";
import { BotType } from "../../src/domain/bots.js";

const human = { id: 1, is_bot: 0, bot_type: null, is_active: 1 };
const hook = (id: number, extra = {}) => ({ id, is_bot: 1, bot_type: BotType.OUTGOING_WEBHOOK, is_active: 1, ...extra });

describe("outgoing webhook rules", () => {
  test("active outgoing-webhook bots are triggered, once each, and never by a bot", () => {
    const generic = { id: 5, is_bot: 1, bot_type: BotType.GENERIC, is_active: 1 };
    assert.deepEqual(triggeredBots(human, [hook(9), generic, hook(7), hook(9), hook(8, { is_active: 0 }), human]), [7, 9]);
    assert.deepEqual(triggeredBots(hook(3), [hook(9)]), []);
  });

  test("answers read as Zulip reads them", () => {
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, '{"content": "hi", "response_not_required": false}'), { kind: "reply", content: "hi" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, '{"response_string": 42}'), { kind: "reply", content: "42" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, '{"content": "x", "response_not_required": true}'), { kind: "nothing" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, '{"text": "slack only"}'), { kind: "nothing" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, '""'), { kind: "nothing" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, "{}"), { kind: "nothing" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, ""), { kind: "invalid", error: "Invalid JSON in response" });
    assert.deepEqual(readAnswer(GENERIC_INTERFACE, "[1]"), { kind: "invalid", error: "Invalid response format" });
    assert.deepEqual(readAnswer(SLACK_INTERFACE, '{"text": "hey", "content": "no"}'), { kind: "reply", content: "hey" });
    assert.deepEqual(readAnswer(SLACK_INTERFACE, '{"response_not_required": true, "text": "still"}'), { kind: "reply", content: "still" });
  });

  test("payloads quoted as Python's repr() quotes them", () => {
    assert.equal(pythonRepr("true", false), "'true'");
    assert.equal(pythonRepr("this isn't valid json", false), `"this isn't valid json"`);
    assert.equal(pythonRepr(`both ' and "`, false), `'both \\' and "'`);
    assert.equal(pythonRepr("a\nb\\", false), "'a\\nb\\\\'");
    assert.equal(pythonRepr(Buffer.from("it broke"), true), "b'it broke'");
    assert.equal(pythonRepr(Buffer.from("é\t"), true), "b'\\xc3\\xa9\\t'");
  });

  test("the owner's notice, with Zulip's precedence of its parts", () => {
    const base = { messageUrl: "https://chat.example.com/#narrow/dm/1,2/near/3", botFullName: "Hook" };
    const head = "[A message](https://chat.example.com/#narrow/dm/1,2/near/3) to your bot @_**Hook** triggered an outgoing webhook.";
    assert.equal(ownerNotice({ ...base, status: 500 }), `${head}\nThe webhook got a response with status code *500*.`);
    assert.equal(ownerNotice({ ...base, status: 407 }), `${head}\nThe URL configured for the webhook is for a private or disallowed network.`);
    assert.equal(ownerNotice({ ...base, status: 400, responseRepr: "b'no'" }), `${head}\nThe webhook got a response with status code *400*.\nThe response contains the following payload:\n\`\`\`\nb'no'\n\`\`\``);
    assert.equal(ownerNotice({ ...base, failureMessage: "Request timed out after 10 seconds." }), `${head}\nRequest timed out after 10 seconds.`);
    assert.equal(
      ownerNotice({ ...base, exception: { type: "ResponseTooLarge", text: "too long" }, failureMessage: "ignored" }),
      `${head}\nWhen trying to send a request to the webhook service, an exception of type ResponseTooLarge occurred:\n\`\`\`\ntoo long\n\`\`\``,
    );
  });
});
