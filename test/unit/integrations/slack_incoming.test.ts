import { test } from "node:test";
import assert from "node:assert/strict";
import { replaceFormatting, replaceLinks, slackIncoming } from "../../../src/integrations/slack_incoming.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(slackIncoming);

test("Slack links become Markdown links", () => {
  assert.equal(replaceLinks("see <https://a.example/x|the page> now"), "see [the page](https://a.example/x) now");
  assert.equal(replaceLinks("<https://a|b> and <mailto://c|d>"), "[b](https://a) and [d](mailto://c)");
  assert.equal(replaceLinks("<https://a.example>"), "<https://a.example>", "no label, no change");
  assert.equal(replaceLinks("<https://a|b\n>"), "<https://a|b\n>", "not across lines");
  assert.equal(replaceLinks("<x://a|b|c>"), "[b|c](x://a)");
  assert.equal(replaceLinks("<://a|b>"), "<://a|b>", "a scheme is needed");
});

test("links stay linear on hostile input", () => {
  const started = Date.now();
  replaceLinks("<a://" + "|".repeat(200_000));
  replaceLinks("<a://x".repeat(50_000));
  assert.ok(Date.now() - started < 2000);
});

test("Slack *bold* and _italic_ become Zulip's", () => {
  assert.equal(replaceFormatting("a *bold* word"), "a **bold** word");
  assert.equal(replaceFormatting("*bold*"), "**bold**");
  assert.equal(replaceFormatting("an _italic_ one"), "an *italic* one");
  assert.equal(replaceFormatting("snake_case_name"), "snake_case_name");
  assert.equal(replaceFormatting("2 * 3 * 4"), "2 * 3 * 4");
  assert.equal(replaceFormatting("*not\nbold*"), "*not\nbold*");
});

test("a payload without content posts nothing; (no topic) without a channel", () => {
  const request = (json: unknown) => ({ json, form: {}, headers: { "content-type": "application/json" }, params: {} });
  assert.deepEqual(slackIncoming.handle(request({ text: "" })).messages, []);
  assert.deepEqual(slackIncoming.handle(request({ text: "hi", icon_emoji: ":wave:" })).messages, [{ topic: "(no topic)", content: ":wave: hi" }]);
  assert.deepEqual(slackIncoming.handle(request({ text: "hi", channel: "@ops" })).messages, [{ topic: "ops", content: "hi" }]);
});
