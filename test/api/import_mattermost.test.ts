/**
 * Mattermost import: Zulip's test exports (../shared/conformance/import/mattermost, read at test
 * time; skipped when absent) converted into Zulip's export format, imported, and read back
 * through the API; the `confab import mattermost` command.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type Credentials } from "../helpers/client.js";
import { ok } from "../helpers/channels.js";
import { writeZip } from "../helpers/zip_writer.js";
import { convertMattermostExport, mattermostTeams, MattermostImportError } from "../../src/importers/mattermost/export.js";
import { importZulipExport } from "../../src/importers/zulip/import.js";
import { getRealmByStringId } from "../../src/store/realms.js";
import { main as manage } from "../../src/cli/manage.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance/import/mattermost");
const skip = fs.existsSync(FIXTURES) ? false : `Mattermost fixtures not found at ${FIXTURES}`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mattermost-import-test-"));
let srv: TestServer;
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));
let n = 0;
const outDir = () => path.join(tmp, `out-${++n}`);

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

async function credentialsOf(stringId: string, email: string): Promise<Credentials> {
  const realm = (await getRealmByStringId(srv.app.db, stringId))!;
  const u = await srv.app.db.selectFrom("users").select(["delivery_email", "api_key"]).where("realm_id", "=", realm.id).where("delivery_email", "=", email).executeTakeFirstOrThrow();
  return { email: u.delivery_email, apiKey: u.api_key };
}
const login = async (stringId: string, email: string): Promise<Api> => apiFor(stringId, await credentialsOf(stringId, email));

describe("Zulip's Mattermost exports", { skip }, () => {
  const exportJson = () => path.join(FIXTURES, "export.json");

  test("two teams: each converts on its own, named, with users, channels, emoji and reactions", async () => {
    assert.deepEqual(await mattermostTeams(exportJson()), ["gryffindor", "slytherin"]);
    await assert.rejects(convertMattermostExport(exportJson(), outDir(), { domain: "example.com" }), (e: Error) => e instanceof MattermostImportError && /several teams/.test(e.message));

    const logs: string[] = [];
    const out = outDir();
    await convertMattermostExport(exportJson(), out, { domain: "example.com", team: "gryffindor", log: (l) => logs.push(l) });
    assert.ok(logs.includes("Generating data for gryffindor"));
    assert.ok(logs.includes("Skipping importing direct message groups and DMs since there are multiple teams in the export"));
    for (const f of ["avatars/records.json", "emoji/records.json", "attachment.json", "uploads/records.json"]) assert.ok(fs.existsSync(path.join(out, f)), f);
    const realm = readJson(path.join(out, "realm.json"));
    assert.equal(realm.zerver_realm[0].description, "Organization imported from Mattermost!");
    assert.equal(realm.zerver_realm[0].string_id, "gryffindor");
    assert.equal(realm.sort_by_date, true);
    const users = realm.zerver_userprofile as Record<string, any>[];
    assert.deepEqual(users.map((u) => [u.full_name, u.email, u.role, u.is_active, u.is_mirror_dummy, u.short_name, u.timezone]).sort(), [
      ["Harry Potter", "harry@zulip.com", 100, true, false, "harry", "UTC"],
      ["Ron Weasley", "ron@zulip.com", 400, true, false, "ron", "UTC"],
      // Posted in the team, then left it.
      ["Severus Snape", "snape@zulip.com", 400, false, true, "snape", "UTC"],
    ]);
    const streams = realm.zerver_stream as Record<string, any>[];
    assert.deepEqual(streams.map((s) => [s.name, s.invite_only, s.deactivated, s.description, s.rendered_description]), [
      ["Gryffindor common room", false, false, "A place for talking about Gryffindor common room", ""],
      ["Gryffindor quidditch team", false, false, "A place for talking about Gryffindor quidditch team", ""],
      ["Dumbledores army", true, false, "A place for talking about Dumbledores army", ""],
    ]);
    assert.equal(realm.zerver_defaultstream.length, 0);
    assert.equal(realm.zerver_recipient.length, 6);
    assert.deepEqual(new Set(realm.zerver_recipient.map((r: any) => r.type)), new Set([1, 2]));
    const idOf = (name: string) => users.find((u) => u.short_name === name)!.id;
    for (const s of streams) {
      const recipient = realm.zerver_recipient.find((r: any) => r.type === 2 && r.type_id === s.id).id;
      const subscribed = realm.zerver_subscription.filter((x: any) => x.recipient === recipient).map((x: any) => x.user_profile).sort();
      assert.deepEqual(subscribed, [idOf("harry"), idOf("ron")].sort(), s.name);
    }

    const { zerver_message: messages, zerver_usermessage: userMessages } = readJson(path.join(out, "messages-000001.json"));
    assert.equal(messages[0].content, "harry joined the channel.\n\n");
    assert.ok(messages.every((m: any) => m.subject === "imported from mattermost" && m.rendered_content === null));
    assert.deepEqual(new Set(userMessages.map((u: any) => u.user_profile)), new Set(users.map((u) => u.id)));
    assert.deepEqual(new Set(userMessages.map((u: any) => u.message)), new Set(messages.map((m: any) => m.id)));
    // Ids follow time, whatever the order of the file (a reply can be older than its post).
    const byId = [...messages].sort((a: any, b: any) => a.id - b.id);
    assert.deepEqual(byId.map((m: any) => m.date_sent), [...byId.map((m: any) => m.date_sent)].sort((a, b) => a - b));

    // Custom emoji: copied byte for byte; reactions name them by id, Unicode ones by code point.
    assert.deepEqual(realm.zerver_realmemoji.map((e: any) => e.name), ["peerdium", "tick"]);
    const records = readJson(path.join(out, "emoji/records.json"));
    for (const r of records) {
      const source = r.name === "peerdium" ? "h15ni7kf1bnj7jeua4qhmctsdo" : "7u7x8ytgp78q8jir81o9ejwwnr";
      assert.deepEqual(fs.readFileSync(path.join(out, "emoji", r.path)), fs.readFileSync(path.join(FIXTURES, "exported_emoji", source, "image.png")));
    }
    const reactions = realm.zerver_reaction as Record<string, any>[];
    const tick = realm.zerver_realmemoji.find((e: any) => e.name === "tick");
    assert.ok(reactions.some((r) => r.emoji_name === "tick" && r.reaction_type === "realm_emoji" && r.emoji_code === String(tick.id)));
    assert.ok(reactions.some((r) => r.emoji_name === "smile" && r.reaction_type === "unicode_emoji" && r.emoji_code === "1f604"));
    assert.ok(reactions.some((r) => r.emoji_name === "world_map" && r.reaction_type === "unicode_emoji" && r.emoji_code === "1f5fa"));
    assert.equal(new Set(reactions.map((r) => r.id)).size, reactions.length);

    const slytherin = outDir();
    await convertMattermostExport(exportJson(), slytherin, { domain: "example.com", team: "slytherin" });
    const sly = readJson(path.join(slytherin, "realm.json"));
    assert.deepEqual(sly.zerver_userprofile.map((u: any) => u.short_name).sort(), ["malfoy", "pansy", "snape"]);
  });

  test("a team guest is a guest; masking hides letters", async () => {
    const out = outDir();
    await convertMattermostExport(path.join(FIXTURES, "guestExport.json"), out, { domain: "example.com", team: "slytherin" });
    const sirius = readJson(path.join(out, "realm.json")).zerver_userprofile.find((u: any) => u.short_name === "sirius");
    assert.equal(sirius.role, 600);
    const masked = outDir();
    await convertMattermostExport(exportJson(), masked, { domain: "example.com", team: "gryffindor", masking: true });
    assert.equal(readJson(path.join(masked, "messages-000001.json")).zerver_message[0].content, "xxxxx xxxxxx xxx xxxxxxx.\n\n");
  });

  test("one team with DMs and files: imported, the API answers as Zulip's test expects", async () => {
    const out = outDir();
    const logs: string[] = [];
    await convertMattermostExport(path.join(FIXTURES, "direct_channel"), out, { domain: "example.com", subdomain: "mm-direct", log: (l) => logs.push(l) });
    assert.ok(logs.includes("Duplicate direct message group found in the export data. Skipping."));
    const realm = readJson(path.join(out, "realm.json"));
    assert.deepEqual(realm.zerver_userprofile.map((u: any) => u.full_name).sort(), ["Ginny Weasley", "Harry Potter", "Ron Weasley", "Tom Riddle"]);
    assert.equal(realm.zerver_stream.length, 3);
    assert.equal(realm.zerver_recipient.length, 8);
    assert.deepEqual(new Set(realm.zerver_recipient.map((r: any) => r.type)), new Set([1, 2, 3]));
    assert.equal(realm.zerver_huddle.length, 1);
    assert.equal(readJson(path.join(out, "messages-000001.json")).zerver_message[0].content, "ron joined the channel.\n\n");
    const attachment = readJson(path.join(out, "attachment.json")).zerver_attachment.find((a: any) => a.file_name === "harry-ron.jpg");
    assert.equal(attachment.is_realm_public, true);
    assert.equal(attachment.owner, realm.zerver_userprofile.find((u: any) => u.short_name === "ron").id);
    const jpg = path.join(FIXTURES, "direct_channel/data/20210622/teams/noteam/channels/mcrm7xee5bnpzn7u9ktsd91dwy/users/knq189b88fdxbdkeeasdynia4o/o3to4ezua3bajj31mzpkn96n5e/harry-ron.jpg");
    assert.deepEqual(fs.readFileSync(path.join(out, "uploads", attachment.path_id)), fs.readFileSync(jpg));

    const summary = await importZulipExport(srv.app, out, {});
    assert.equal(summary.stringId, "mm-direct");
    assert.equal(summary.counts.messages, 11);
    const harryKey = await credentialsOf("mm-direct", "harry@zulip.com");
    const harry = apiFor("mm-direct", harryKey);
    const all = (await ok(harry.get("/messages", { anchor: "oldest", num_before: 0, num_after: 100, apply_markdown: true } as never))).messages as Record<string, any>[];
    assert.ok(all.every((m) => typeof m.content === "string" && m.content.startsWith("<")));

    const channel = all.filter((m) => m.type === "stream");
    assert.equal(channel.length, 4);
    assert.equal(new Set(channel.map((m) => m.stream_id)).size, 2);
    assert.equal(channel[0].sender_full_name, "Ron Weasley");
    assert.match(channel[0].content, /ron joined the channel\./);
    assert.ok(channel.every((m) => m.subject === "imported from mattermost"));
    const withFile = channel.find((m) => m.content.includes("this is a file"))!;
    assert.equal(withFile.sender_full_name, "Harry Potter");
    assert.match(withFile.content, /Looks like this channel is empty/);
    assert.match(withFile.content, /href="\/user_uploads\/\d+\/[^"]+\/this-is-a-file"/);

    const dms = all.filter((m) => m.type === "private");
    const group = dms.filter((m) => m.display_recipient.length === 3);
    assert.equal(group.length, 3);
    assert.equal(group[0].sender_full_name, "Ginny Weasley");
    assert.match(group[0].content, /Who is going to Hogsmeade this weekend\?/);
    assert.ok(dms.every((m) => m.subject === ""));
    const oneToOne = dms.filter((m) => m.display_recipient.length === 2);
    assert.equal(oneToOne.length, 4);
    assert.equal(oneToOne[0].sender_full_name, "Ron Weasley");
    assert.match(oneToOne[0].content, /hey harry/);
    const upload = oneToOne[0].content.match(/href="(\/user_uploads\/[^"]+harry-ron\.jpg)"/)?.[1];
    assert.ok(upload, oneToOne[0].content);
    const res = await fetch(`${srv.url}${upload}`, { headers: { authorization: basicAuth(harryKey), host: `mm-direct.${new URL(srv.app.config.externalUrl).host}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), fs.readFileSync(jpg));
  });

  test("confab import mattermost: every team of the export becomes an organization", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const env = { CONFAB_DATA_DIR: srv.dataDir, DATABASE_URL: srv.app.config.databaseUrl ?? "", LOG_LEVEL: "silent" };
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    assert.equal(await manage(["import", "mattermost", exportJson(), "--realm", "one"], env, io), 1);
    assert.match(err.join("\n"), /--realm cannot name them all/);
    const code = await manage(["import", "mattermost", exportJson()], env, io);
    assert.equal(code, 0, err.join("\n"));
    assert.match(out.join("\n"), /Imported organization 'gryffindor' \(string id 'gryffindor'/);
    assert.match(out.join("\n"), /Imported organization 'slytherin' \(string id 'slytherin'/);
    const ron = await login("gryffindor", "ron@zulip.com");
    const { streams } = await ok(ron.get("/streams"));
    assert.deepEqual(streams.map((s: any) => s.name).sort(), ["Dumbledores army", "Gryffindor common room", "Gryffindor quidditch team"]);
    const { members } = await ok(ron.get("/users", { include_deactivated_users: true } as never));
    assert.equal(members.find((m: any) => m.full_name === "Severus Snape")?.is_active, false);
    // Importing again: the organization exists, nothing changes.
    assert.equal(await manage(["import", "mattermost", exportJson()], env, io), 1);
    assert.match(err.join("\n"), /already exists/);
  });
});

describe("bad Mattermost input", () => {
  test("a zip of the export converts like the directory; broken lines and files are refused", async () => {
    const zip = path.join(tmp, "export.zip");
    writeZip(zip, [
      {
        name: "import.jsonl",
        data: [
          JSON.stringify({ type: "version", version: 1 }),
          JSON.stringify({ type: "team", team: { name: "team1", display_name: "Team 1", type: "O" } }),
          JSON.stringify({ type: "channel", channel: { team: "team1", name: "town", display_name: "Town square", type: "O", purpose: "", header: "" } }),
          JSON.stringify({ type: "user", user: { username: "ann", email: "ann@example.com", first_name: "Ann", last_name: "A", teams: [{ name: "team1", roles: "team_admin", channels: [{ name: "town", roles: "channel_user" }] }] } }),
          JSON.stringify({ type: "post", post: { team: "team1", channel: "town", user: "ann", message: "hello @ann", create_at: 1600000000000, attachments: [{ path: "a/note.txt" }], replies: null, reactions: null } }),
        ].join("\n"),
      },
      { name: "data/a/note.txt", data: "a note" },
    ]);
    const out = outDir();
    const summary = await convertMattermostExport(zip, out, { domain: "example.com" });
    assert.deepEqual([summary.team, summary.users, summary.messages, summary.uploads], ["team1", 1, 1, 1]);
    const [message] = readJson(path.join(out, "messages-000001.json")).zerver_message;
    assert.match(message.content, /^hello @\*\*Ann A\*\*\n\n\[note\.txt\]\(\/user_uploads\/1\/[^)]+\/note\.txt\)$/);

    const broken = path.join(tmp, "broken.jsonl");
    fs.writeFileSync(broken, '{"type":"version","version":1}\n{not json\n');
    await assert.rejects(convertMattermostExport(broken, outDir(), { domain: "example.com" }), { message: "Line 2 of the export is not valid JSON." });
    const noTeam = path.join(tmp, "noteam.jsonl");
    fs.writeFileSync(noTeam, '{"type":"version","version":1}\n');
    await assert.rejects(convertMattermostExport(noTeam, outDir(), { domain: "example.com" }), { message: "The export has no team." });
    const badEmail = path.join(tmp, "bademail.jsonl");
    fs.writeFileSync(
      badEmail,
      [
        JSON.stringify({ type: "team", team: { name: "t1" } }),
        JSON.stringify({ type: "user", user: { username: "x", email: "x@gmail,com", teams: [{ name: "t1", roles: "team_user" }] } }),
      ].join("\n"),
    );
    await assert.rejects(convertMattermostExport(badEmail, outDir(), { domain: "example.com" }), { message: "Invalid email format, please fix the following email(s) and try again: x@gmail,com" });
    const liar = path.join(tmp, "liar.zip");
    writeZip(liar, [{ name: "import.jsonl", data: '{"type":"version","version":1}\n'.repeat(5000), declaredSize: 100 }]);
    await assert.rejects(convertMattermostExport(liar, outDir(), { domain: "example.com" }), (e: Error) => e instanceof MattermostImportError && /cannot be read: too many bytes/.test(e.message));
    const traversal = path.join(tmp, "traversal.zip");
    writeZip(traversal, [{ name: "../import.jsonl", data: "{}" }]);
    await assert.rejects(convertMattermostExport(traversal, outDir(), { domain: "example.com" }), (e: Error) => e instanceof MattermostImportError && /Path traversal/.test(e.message));
  });
});
