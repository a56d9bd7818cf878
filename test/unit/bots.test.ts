import { test } from "node:test";
import assert from "node:assert/strict";
import { BotType, botEmail, checkBotType, checkConfigEntry, checkInterfaceType, checkShortName, checkStorageSize } from "../../src/domain/bots.js";

const refuses = (fn: () => void, msg: string) => assert.throws(fn, (e: { msg?: string }) => e.msg === msg);

test("short names: trimmed, never empty; the address must be one Zulip accepts", () => {
  assert.equal(checkShortName("  helper "), "helper");
  refuses(() => checkShortName("   "), "Bad name or username");
  assert.equal(botEmail("helper", "zulip.example.com"), "helper-bot@zulip.example.com");
  refuses(() => botEmail("two words", "zulip.example.com"), "Bad name or username");
  refuses(() => botEmail("a..b", "zulip.example.com"), "Bad name or username");
});

test("bot kinds: generic ones only for those who may create any bot; no embedded bots", () => {
  checkBotType(BotType.GENERIC, true);
  checkBotType(BotType.INCOMING_WEBHOOK, false);
  checkBotType(BotType.OUTGOING_WEBHOOK, false);
  refuses(() => checkBotType(BotType.GENERIC, false), "Invalid bot type");
  refuses(() => checkBotType(BotType.EMBEDDED, true), "Invalid bot type");
  refuses(() => checkBotType(0, true), "Invalid bot type");
  checkInterfaceType(1);
  checkInterfaceType(2);
  refuses(() => checkInterfaceType(3), "Invalid interface type");
});

test("configuration entries are measured key and value together, in code points", () => {
  checkConfigEntry("k", "v".repeat(9_999));
  refuses(
    () => checkConfigEntry("key", "v".repeat(9_998)),
    "Cannot store configuration. Request would require 10001 characters. The current configuration size limit is 10000 characters.",
  );
  checkConfigEntry("k", "😀".repeat(9_999));
});

test("storage size: replaced entries count once, new ones in full", () => {
  const stored = new Map([["capacity-filling entry", "x".repeat(78)]]);
  checkStorageSize(stored, [["capacity-filling entry", "x".repeat(78)]], 100);
  refuses(
    () => checkStorageSize(stored, [["too much data", "a few bits too long"]], 100),
    "Request exceeds storage limit by 32 characters. The limit is 100 characters.",
  );
  checkStorageSize(new Map([["another big entry", "x".repeat(60)]]), [["normal entry", "abcd"]], 100);
  checkStorageSize(stored, [["capacity-filling entry", ""], ["new", "x".repeat(75)]], 100);
});
