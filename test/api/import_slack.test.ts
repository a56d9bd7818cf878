/**
 * Slack import: Zulip's test workspace (../shared/conformance/import/slack, read at test time;
 * skipped when absent) converted into Zulip's export format, then imported and read back through
 * the API; hostile zips refused before anything is written.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type Credentials } from "../helpers/client.js";
import { ok } from "../helpers/channels.js";
import { writeZip } from "../helpers/zip_writer.js";
import { convertSlackExport, SlackImportError, type ConversionSummary } from "../../src/importers/slack/export_zip.js";
import { importZulipExport, type ZulipImportSummary } from "../../src/importers/zulip/import.js";
import { getRealmByStringId } from "../../src/store/realms.js";
import { DEFAULT_ZIP_LIMITS } from "../../src/importers/zip.js";
import { main as manage } from "../../src/cli/manage.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance/import/slack");
const skip = fs.existsSync(FIXTURES) ? false : `Slack fixtures not found at ${FIXTURES}`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "slack-import-test-"));
let srv: TestServer;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));

/** Slack's file server, as the converter sees it: the bytes of each file it asks for. */
const fetchedUrls: string[] = [];
const fakeSlackFiles = async (url: string) => {
  fetchedUrls.push(url);
  return new URL(url).hostname === "files.slack.com" ? Buffer.from(`contents of ${new URL(url).pathname}`) : undefined;
};

before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function apiFor(stringId: string, c: Credentials) {
  const api = new Api(srv.url, c);
  const call = api.call.bind(api);
  api.call = (method, route, params = {}, headers = {}) => call(method, route, params, { host: `${stringId}.${new URL(srv.app.config.externalUrl).host}`, ...headers });
  return api;
}

describe("Slack's test workspace", { skip }, () => {
  const out = path.join(tmp, "converted");
  let summary: ConversionSummary;

  before(async () => {
    summary = await convertSlackExport(path.join(FIXTURES, "test_slack_importer.zip"), out, {
      domain: "example.com",
      subdomain: "test-slack-import",
      users: readJson(path.join(FIXTURES, "user_data.json")).members,
      fetchFile: fakeSlackFiles,
    });
  });

  test("converts into Zulip's export format as Zulip's converter does", () => {
    for (const f of ["realm.json", "attachment.json", "messages-000001.json", "uploads/records.json", "avatars/records.json", "emoji/records.json", "realm_icons/records.json"]) {
      assert.ok(fs.existsSync(path.join(out, f)), f);
    }
    assert.ok(fs.readdirSync(path.join(out, "uploads", "1")).length > 0);
    const realm = readJson(path.join(out, "realm.json"));
    assert.equal(realm.import_source, "slack");
    assert.equal(realm.zerver_realm[0].description, "Organization imported from Slack!");
    assert.equal(realm.zerver_realm[0].string_id, "test-slack-import");
    assert.equal(realm.zerver_realm[0].uuid, undefined);
    assert.deepEqual(realm.zerver_realmdomain, [{ realm: 1, allow_subdomains: false, domain: "example.com", id: 1 }]);

    // 5 users from the users.list answer; the primary owner first; roles as Slack flags them.
    const users = realm.zerver_userprofile as Record<string, any>[];
    assert.deepEqual(
      users.map((u) => [u.email, u.role, u.is_bot]),
      [
        ["rhtbot@protonmail.com", 100, false],
        ["rheaparekh12@gmail.com", 100, false],
        ["rishiweb+0@mit.edu", 200, false],
        ["showell30@yahoo.com", 400, false],
        ["imported-slackbot-bot@example.com", 400, true],
      ],
    );
    assert.equal(users[0].id, Math.min(...users.map((u) => u.id)));
    assert.equal(users[0].timezone, "Europe/Amsterdam");

    // #general and #random, public with shared history; both default channels.
    const streams = realm.zerver_stream as Record<string, any>[];
    assert.deepEqual(streams.map((s) => [s.name, s.invite_only, s.history_public_to_subscribers, s.deactivated]), [
      ["general", false, true, false],
      ["random", false, true, false],
    ]);
    assert.equal(realm.zerver_defaultstream.length, 2);
    assert.equal(realm.zerver_realm[0].new_stream_announcements_stream, streams[0].id);

    // 91 messages less 8 channel joins and 1 pin.
    assert.equal(summary.messages, 82);
    const { zerver_message: messages, zerver_usermessage: userMessages } = readJson(path.join(out, "messages-000001.json"));
    assert.equal(messages.length, 82);
    assert.ok(messages.every((m: any) => m.rendered_content === null && m.rendered_content_version === 1 && m.sending_client === 5));
    assert.ok(!messages.some((m: any) => /has joined the channel/.test(m.content)));
    const byContent = (re: RegExp) => messages.find((m: any) => re.test(m.content));
    assert.equal(byContent(/this is a test mention/).content, "@**Rhea Parekh** this is a test mention");
    const mention = byContent(/this is a test mention/);
    const rhea = users.find((u) => u.full_name === "Rhea Parekh")!;
    assert.equal(userMessages.find((um: any) => um.message === mention.id && um.user_profile === rhea.id).flags_mask, 9);
    assert.equal(byContent(/incoming-webhooks/).content, "There is https://api.slack.com/incoming-webhooks");
    assert.equal(byContent(/incoming-webhooks/).has_link, true);

    // Topics: unthreaded messages in one topic, the thread in its own dated one.
    assert.equal(messages.filter((m: any) => m.subject === "imported from Slack").length, 79);
    const thread = messages.filter((m: any) => m.subject !== "imported from Slack");
    assert.deepEqual(thread.map((m: any) => m.subject), Array(3).fill("2018-01-23 ***rabbitduck***"));

    // The two shared files: fetched, stored under uploads/, linked, one attachment each.
    const attachments = readJson(path.join(out, "attachment.json")).zerver_attachment;
    assert.equal(attachments.length, 2);
    const image = attachments.find((a: any) => a.file_name === "IMG_0677.JPG");
    assert.equal(image.content_type, "image/jpeg");
    assert.equal(image.is_realm_public, true);
    assert.match(image.path_id, /^1\/[0-9a-f]{1,2}\/[\w-]+\/IMG_0677\.JPG$/);
    assert.equal(fs.readFileSync(path.join(out, "uploads", image.path_id), "utf8"), "contents of /files-pri/T5YFFM2QY-F8VDNT9FB/img_0677.jpg");
    const shared = messages.find((m: any) => m.id === image.messages[0]);
    assert.ok(shared.content.endsWith(`\n[IMG_0677.JPG](/user_uploads/${image.path_id})`));
    assert.deepEqual([shared.has_attachment, shared.has_image, shared.has_link], [true, true, true]);
    assert.equal(readJson(path.join(out, "uploads/records.json")).length, 2);

    // One reaction (the other is on a skipped channel join), under Zulip's emoji name.
    assert.deepEqual(
      realm.zerver_reaction.map((r: any) => [r.emoji_name, r.emoji_code, r.reaction_type]),
      [["speechless", "1f636", "unicode_emoji"]],
    );
  });

  test("imports; the organization answers /users, /streams and /messages as the export says", async () => {
    const imported: ZulipImportSummary = await importZulipExport(srv.app, out, { stringId: "test-slack-import" });
    assert.equal(imported.counts.messages, 82);
    const realm = (await getRealmByStringId(srv.app.db, "test-slack-import"))!;
    const owner = await srv.app.db.selectFrom("users").select(["delivery_email", "api_key"]).where("realm_id", "=", realm.id).where("delivery_email", "=", "rhtbot@protonmail.com").executeTakeFirstOrThrow();
    const api = apiFor("test-slack-import", { email: owner.delivery_email, apiKey: owner.api_key });

    const { members } = await ok(api.get("/users"));
    const byName = new Map(members.map((m: any) => [m.full_name, m]));
    assert.equal((byName.get("Josef K.") as any).role, 100);
    assert.equal((byName.get("Rhea Parekh") as any).role, 100);
    assert.equal((byName.get("Rishi हिन्दी 汉语") as any).role, 200);
    assert.equal((byName.get("Steve Howell") as any).role, 400);
    assert.equal((byName.get("slackbot") as any).is_bot, true);

    const { streams } = await ok(api.get("/streams"));
    assert.deepEqual(streams.map((s: any) => s.name).sort(), ["general", "random"]);

    const general = streams.find((s: any) => s.name === "general");
    const page = await ok(api.get("/messages", { anchor: "newest", num_before: 200, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: general.stream_id }]) } as never));
    const mention = page.messages.find((m: any) => m.content.includes("this is a test mention"));
    assert.match(mention.content, /class="user-mention"[^>]*>@Rhea Parekh</);
    assert.equal(mention.subject, "imported from Slack");
    const shared = page.messages.find((m: any) => m.content.includes("IMG_0677.JPG") && m.content.includes("/user_uploads/"));
    assert.ok(shared, "the shared image's message links its upload");
    const thread = page.messages.filter((m: any) => m.subject === "2018-01-23 ***rabbitduck***");
    assert.equal(thread.length, 3);
  });
});

describe("a channel with a non-Latin name (Zulip's unicode fixture)", { skip }, () => {
  test("its folder, named in UTF-8 without the zip's UTF-8 flag, is read", async () => {
    const out = path.join(tmp, "unicode-out");
    const summary = await convertSlackExport(path.join(FIXTURES, "test_unicode_slack_importer.zip"), out, {
      domain: "example.com",
      users: readJson(path.join(FIXTURES, "unicode_user_data.json")).members,
    });
    assert.deepEqual(readJson(path.join(out, "realm.json")).zerver_stream.map((s: any) => s.name), ["general", "random", "チャネル"]);
    const channel = readJson(path.join(out, "realm.json")).zerver_recipient.find((r: any) => r.type === 2 && r.type_id === 3);
    const { zerver_message: messages } = readJson(path.join(out, "messages-000001.json"));
    assert.equal(summary.messages, messages.length);
    assert.ok(messages.some((m: any) => m.recipient === channel.id));
  });
});

describe("channels, group DMs and DMs (Zulip's channel-mapping fixtures)", { skip }, () => {
  test("archived channels, default channels, DM groups and DMs convert and import", async () => {
    const people = [
      { id: "U061A1R2R", name: "jon", real_name: "Jon", is_primary_owner: true, profile: { email: "jon@example.com" } },
      { id: "U061A5N1G", name: "jane", real_name: "Jane", profile: { email: "jane@example.com" } },
      { id: "U064KUGRJ", name: "bob", real_name: "Bob", is_restricted: true, profile: { email: "bob@example.com" } },
      { id: "U061A3E0G", name: "ann", real_name: "Ann", profile: { email: "ann@example.com" } },
    ].map((u) => ({ deleted: false, ...u }));
    const list = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");
    const day = (messages: object[]) => JSON.stringify(messages);
    const zip = path.join(tmp, "dms.zip");
    writeZip(zip, [
      { name: "users.json", data: JSON.stringify(people) },
      { name: "channels.json", data: list("channels.json") },
      { name: "mpims.json", data: list("mpims.json") },
      { name: "dms.json", data: list("dms.json") },
      { name: "general/2020-01-01.json", data: day([{ type: "message", user: "U061A1R2R", text: "hello <@U061A5N1G>", ts: "1577872800.000100" }]) },
      { name: "mpdm-user6--user7--user4-1/2020-01-01.json", data: day([{ type: "message", user: "U061A5N1G", text: "group hello", ts: "1577872801.000100" }]) },
      {
        name: "DJ47BL849/2020-01-01.json",
        data: day([
          { type: "message", user: "U061A1R2R", text: "hi Jane", ts: "1577872802.000100" },
          { type: "message", user: "U061A5N1G", text: "hi Jon", ts: "1577872803.000100", reactions: [{ name: "+1", users: ["U061A1R2R"] }] },
        ]),
      },
      { name: "DRS3PSLDK/2020-01-02.json", data: day([{ type: "message", user: "U064KUGRJ", text: "note to self", ts: "1577959200.000100" }]) },
    ]);
    const out = path.join(tmp, "dms-out");
    await convertSlackExport(zip, out, { domain: "example.com", subdomain: "slack-dms" });
    const realm = readJson(path.join(out, "realm.json"));
    assert.deepEqual(realm.zerver_stream.map((s: any) => [s.name, s.deactivated]), [
      ["random", true],
      ["general", false],
      ["general1", false],
      ["sharedchannel", false],
    ]);
    const general = realm.zerver_stream.find((s: any) => s.name === "general");
    assert.deepEqual(realm.zerver_defaultstream.map((d: any) => d.stream), [general.id]);
    assert.equal(realm.zerver_huddle.length, 3);
    assert.deepEqual(new Set(realm.zerver_recipient.map((r: any) => r.type)), new Set([1, 2, 3]));
    assert.equal(realm.zerver_userprofile.find((u: any) => u.email === "bob@example.com").role, 600);
    const { zerver_message: messages } = readJson(path.join(out, "messages-000001.json"));
    assert.equal(messages.length, 5);
    assert.ok(messages.filter((m: any) => !m.is_channel_message).every((m: any) => m.subject === ""));

    await importZulipExport(srv.app, out, {});
    const key = async (email: string) => {
      const u = await srv.app.db.selectFrom("users").select(["delivery_email", "api_key"]).where("delivery_email", "=", email).executeTakeFirstOrThrow();
      return apiFor("slack-dms", { email: u.delivery_email, apiKey: u.api_key });
    };
    const jane = await key("jane@example.com");
    const seen = (await ok(jane.get("/messages", { anchor: "oldest", num_before: 0, num_after: 50 } as never))).messages as Record<string, any>[];
    assert.deepEqual(
      seen.map((m) => [m.type, m.sender_full_name, m.type === "stream" ? m.display_recipient : m.display_recipient.length]),
      [
        ["stream", "Jon", "general"],
        ["private", "Jane", 3],
        ["private", "Jon", 2],
        ["private", "Jane", 2],
      ],
    );
    assert.ok(seen[0].flags.includes("mentioned"));
    assert.deepEqual(seen[3].reactions.map((r: any) => r.emoji_name), ["+1"]);
    const bob = await key("bob@example.com");
    const bobs = (await ok(bob.get("/messages", { anchor: "oldest", num_before: 0, num_after: 50, narrow: JSON.stringify([{ operator: "is", operand: "dm" }]) } as never))).messages as Record<string, any>[];
    assert.deepEqual(bobs.map((m) => m.content), ["<p>group hello</p>", "<p>note to self</p>"]);
  });

  test("confab import slack: the zip becomes an organization named by --realm or after the file", async () => {
    const zip = path.join(tmp, "dms.zip");
    const out: string[] = [];
    const err: string[] = [];
    const env = { CONFAB_DATA_DIR: srv.dataDir, DATABASE_URL: srv.app.config.databaseUrl ?? "", LOG_LEVEL: "silent" };
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    assert.equal(await manage(["import", "slack", zip, "--realm", "slack-cli"], env, io), 0, err.join("\n"));
    assert.match(out.join("\n"), /Imported organization 'slack-cli' \(string id 'slack-cli'.*5 messages/);
    assert.match(err.join("\n"), /Slack: converted 5 messages/);
    assert.equal(await manage(["import", "slack", zip], env, io), 0, err.join("\n"));
    assert.match(out.join("\n"), /string id 'dms'/);
    assert.equal(await manage(["import", "slack", zip, "--realm", "slack-cli"], env, io), 1);
    assert.match(err.join("\n"), /already exists/);
    assert.equal(await manage(["import", "slack", path.join(tmp, "missing.zip")], env, io), 1);
    assert.match(err.join("\n"), /missing\.zip is not a file that can be read/);
  });
});

describe("hostile or wrong zips are refused before anything is written", () => {
  const refuse = async (entries: Parameters<typeof writeZip>[1], message: RegExp, limits = DEFAULT_ZIP_LIMITS) => {
    const zip = path.join(tmp, `bad-${Math.random().toString(36).slice(2)}.zip`);
    writeZip(zip, entries);
    const dir = path.join(tmp, `out-${Math.random().toString(36).slice(2)}`);
    await assert.rejects(convertSlackExport(zip, dir, { domain: "example.com", zipLimits: limits }), (e: Error) => e instanceof SlackImportError && message.test(e.message));
    assert.ok(!fs.existsSync(dir) || fs.readdirSync(dir).length === 0);
  };
  const users = JSON.stringify([{ id: "U1", name: "a", deleted: false, profile: { email: "a@example.com" } }]);

  test("path traversal and absolute paths", async () => {
    await refuse([{ name: "../evil.json", data: "[]" }], /Path traversal/);
    await refuse([{ name: "/etc/evil.json", data: "[]" }], /Absolute path/);
  });

  test("a zip that is not a Slack export", async () => {
    await refuse([{ name: "docs/deep/readme.txt", data: "hello" }], /^Uploaded zip file is not a valid Slack export\.$/);
    await refuse([{ name: "users.json", data: users }], /^Import does not have the layout we expect from a Slack export!$/);
    const notZip = path.join(tmp, "not.zip");
    fs.writeFileSync(notZip, "this is not a zip");
    await assert.rejects(convertSlackExport(notZip, path.join(tmp, "o2"), { domain: "example.com" }), SlackImportError);
  });

  test("entries over the size cap, and zip bombs", async () => {
    const small = { ...DEFAULT_ZIP_LIMITS, maxEntryBytes: 1000 };
    await refuse([{ name: "channels.json", data: "[" + " ".repeat(2000) + "]" }], /too large/, small);
    // 200 kB of zeros deflate to a few hundred bytes: over 10 times the archive, and over the floor.
    const bomb = { ...DEFAULT_ZIP_LIMITS, ratioFloorBytes: 100_000 };
    await refuse([{ name: "channels.json", data: Buffer.alloc(200_000) }], /zip bomb/, bomb);
  });

  test("an entry whose inflated bytes exceed what it declares", async () => {
    const zip = path.join(tmp, "liar.zip");
    writeZip(zip, [
      { name: "users.json", data: users },
      { name: "channels.json", data: "[" + " ".repeat(50_000) + "]", declaredSize: 10 },
    ]);
    await assert.rejects(convertSlackExport(zip, path.join(tmp, "o3"), { domain: "example.com" }), SlackImportError);
  });

  test("malformed user addresses, all named at once", async () => {
    const bad = JSON.stringify([
      { id: "U1", name: "jon", deleted: false, profile: { email: "jon@gmail,com" } },
      { id: "U2", name: "jane", deleted: false, profile: { email: "jane@gmail.m" } },
    ]);
    await refuse(
      [
        { name: "users.json", data: bad },
        { name: "channels.json", data: "[]" },
      ],
      /^Invalid email format, please fix the following email\(s\) and try again: jon@gmail,com, jane@gmail\.m$/,
    );
  });
});
