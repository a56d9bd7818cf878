/** The web client's bot list follows `realm_bot` events; zuliprc files and integration URLs. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyBotEvent, integrationUrl, zuliprc, type Bot } from "../../../web/src/state/bots.js";

const bot = (id: number, extra: Partial<Bot> = {}): Bot => ({
  user_id: id,
  email: `b${id}-bot@example.com`,
  full_name: `Bot ${id}`,
  bot_type: 1,
  is_active: true,
  api_key: "k".repeat(32),
  owner_id: 7,
  default_sending_stream: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
  avatar_url: "",
  services: [],
  ...extra,
});

test("bots are added, updated field by field, and dropped on delete or remove", () => {
  const start = new Map([[1, bot(1)]]);
  const added = applyBotEvent(start, { op: "add", bot: bot(2) });
  assert.deepEqual([...added.keys()], [1, 2]);
  assert.equal(start.size, 1);
  const renamed = applyBotEvent(added, { op: "update", bot: { user_id: 2, full_name: "Renamed" } });
  assert.equal(renamed.get(2)!.full_name, "Renamed");
  assert.equal(renamed.get(2)!.api_key, "k".repeat(32));
  assert.deepEqual(applyBotEvent(renamed, { op: "update", bot: { user_id: 9, full_name: "Unknown" } }), renamed);
  assert.deepEqual([...applyBotEvent(renamed, { op: "delete", bot: { user_id: 1 } }).keys()], [2]);
  assert.deepEqual([...applyBotEvent(renamed, { op: "remove", bot: { user_id: 2, full_name: "x" } }).keys()], [1]);
});

test("a zuliprc names the bot, its key and the site", () => {
  assert.equal(zuliprc(bot(3), "https://chat.example.com"), `[api]\nemail=b3-bot@example.com\nkey=${"k".repeat(32)}\nsite=https://chat.example.com\n`);
});

test("integration URLs: the key, then the channel and topic when given, all encoded", () => {
  assert.equal(integrationUrl("https://c.example", "github", "abc", "", ""), "https://c.example/api/v1/external/github?api_key=abc");
  assert.equal(
    integrationUrl("https://c.example", " github ", "abc", "dev ops", " CI & builds "),
    "https://c.example/api/v1/external/github?api_key=abc&stream=dev+ops&topic=CI+%26+builds",
  );
});
