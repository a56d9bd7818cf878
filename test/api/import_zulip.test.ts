/**
 * Importing Zulip's export format (a synthetic export shaped as Zulip writes it, and Confab's own
 * Zulip-format export of the development organization), then reading the result through the API.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import * as tar from "tar";
import sharp from "sharp";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type Credentials } from "../helpers/client.js";
import { ok } from "../helpers/channels.js";
import { writeZulipExport, type Written } from "../fixtures/zulip_export.js";
import { openExport } from "../../src/importers/zulip/archive.js";
import { importZulipExport, ZulipImportError } from "../../src/importers/zulip/import.js";
import { exportZulipFormat } from "../../src/exporters/zulip/export.js";
import { seedDevOrganization } from "../../src/dev/seed.js";
import { listTables } from "../../src/store/realm_tables.js";
import { getRealmByStringId } from "../../src/store/realms.js";
import { main as manage } from "../../src/cli/manage.js";
import type { AppContext } from "../../src/context.js";
import { SUBSCRIPTION_PROP_DEFAULTS } from "../../src/format/streams.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "zulip-import-test-"));
let srv: TestServer;
let fixture: Written;
let tarball: string;

async function importFile(app: AppContext, file: string, stringId?: string) {
  const source = await openExport(file);
  try {
    return await importZulipExport(app, source.dir, { stringId });
  } finally {
    source.cleanup();
  }
}

async function credentials(app: AppContext, realmId: number, userId: number): Promise<Credentials> {
  const u = await app.db.selectFrom("users").select(["delivery_email", "api_key", "realm_id"]).where("id", "=", userId).executeTakeFirstOrThrow();
  assert.equal(u.realm_id, realmId);
  return { email: u.delivery_email, apiKey: u.api_key };
}

/** Row counts of every table: a refused import must leave all of them as they were. */
async function tableCounts(app: AppContext): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of await listTables(app.db)) {
    const row = await app.db.selectFrom(t.name as "users").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    out[t.name] = Number(row.n);
  }
  return out;
}

/** A hostname-routed API client for the imported organization. */
function apiFor(stringId: string, c: Credentials) {
  const api = new Api(srv.url, c);
  const call = api.call.bind(api);
  api.call = (method, route, params = {}, headers = {}) => call(method, route, params, { host: `${stringId}.${new URL(srv.app.config.externalUrl).host}`, ...headers });
  return api;
}

before(async () => {
  srv = await startTestServer();
  fixture = writeZulipExport(tmp, { messages: 2500 });
  // The owner has an uploaded avatar: a real image, as Zulip keeps the original.
  const realmFile = path.join(fixture.dir, "realm.json");
  const data = JSON.parse(fs.readFileSync(realmFile, "utf8"));
  data.zerver_userprofile.find((u: any) => u.id === fixture.userIds.owner).avatar_source = "U";
  data.zerver_userprofile.find((u: any) => u.id === fixture.userIds.owner).avatar_version = 3;
  fs.writeFileSync(realmFile, JSON.stringify(data));
  const avatar = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#3366ff" } }).png().toBuffer();
  fs.mkdirSync(path.join(fixture.dir, "avatars", "2"), { recursive: true });
  fs.writeFileSync(path.join(fixture.dir, "avatars", "2", "0123456789abcdef0123456789abcdef01234567.original"), avatar);
  fs.writeFileSync(
    path.join(fixture.dir, "avatars", "records.json"),
    JSON.stringify([{ realm_id: 2, user_profile_id: fixture.userIds.owner, user_profile_email: "owner@example.com", avatar_version: 3, path: "2/0123456789abcdef0123456789abcdef01234567.original", s3_path: "2/0123456789abcdef0123456789abcdef01234567.original", size: avatar.length }]),
  );
  // A row naming a file outside the export is not read.
  const attachmentFile = path.join(fixture.dir, "attachment.json");
  const attachments = JSON.parse(fs.readFileSync(attachmentFile, "utf8"));
  attachments.zerver_attachment.push({ ...attachments.zerver_attachment[0], id: 78, path_id: "../../../../etc/hostname", messages: [fixture.messageIds[5]] });
  fs.writeFileSync(attachmentFile, JSON.stringify(attachments));
  tarball = path.join(tmp, "export.tar.gz");
  await tar.create({ gzip: true, file: tarball, cwd: tmp, portable: true }, [path.basename(fixture.dir)]);
});
after(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("import zulip", () => {
  test("an empty database keeps user and message ids; the API answers as the export says", async () => {
    const summary = await importFile(srv.app, tarball);
    assert.deepEqual(summary.idsKept, { users: true, messages: true });
    assert.equal(summary.stringId, "zulipdev");
    assert.equal(summary.counts.messages, 2500);
    const realm = (await getRealmByStringId(srv.app.db, "zulipdev"))!;
    assert.equal(realm.name, "Zulip Dev");
    const owner = await credentials(srv.app, realm.id, fixture.userIds.owner);
    const api = apiFor("zulipdev", owner);

    const { members } = await ok(api.get("/users"));
    const byId = new Map(members.map((m: any) => [m.user_id, m]));
    assert.equal((byId.get(fixture.userIds.owner) as any).role, 100);
    assert.equal((byId.get(fixture.userIds.admin) as any).role, 200);
    assert.equal((byId.get(fixture.userIds.moderator) as any).role, 300);
    assert.equal((byId.get(fixture.userIds.guest) as any).role, 600);
    assert.equal((byId.get(fixture.userIds.bot) as any).is_bot, true);
    assert.equal((byId.get(fixture.userIds.bot) as any).bot_owner_id, fixture.userIds.owner);
    const ownerAvatar = (byId.get(fixture.userIds.owner) as any).avatar_url as string;
    assert.match(ownerAvatar, /\/user_avatars\/2\/[0-9a-f]{40}\.png\?version=3$/);
    const avatarRes = await fetch(new URL(ownerAvatar, srv.url), { headers: { host: `zulipdev.${new URL(srv.app.config.externalUrl).host}` } });
    assert.equal(avatarRes.status, 200);
    assert.equal((await sharp(Buffer.from(await avatarRes.arrayBuffer())).metadata()).width, 100);
    assert.equal(summary.counts.attachments, 1);
    const { members: all } = await ok(api.get("/users", { include_deactivated_users: true } as never));
    assert.equal(all.find((m: any) => m.user_id === fixture.userIds.deactivated)?.is_active, false);

    // The first message: mention, channel link and upload link, ids as exported.
    const first = await ok(api.get("/messages", { anchor: fixture.messageIds[0], num_before: 0, num_after: 0, apply_markdown: true } as never));
    const m0 = first.messages[0];
    assert.equal(m0.id, fixture.messageIds[0]);
    assert.match(m0.content, new RegExp(`data-user-id="${fixture.userIds.admin}"`));
    assert.match(m0.content, new RegExp(`data-stream-id="${fixture.streamIds[0]}"`));
    assert.match(m0.content, new RegExp(`/user_uploads/${fixture.pathId}`));
    assert.equal(m0.subject, "topic 0");
    assert.ok(m0.flags.includes("starred"));
    assert.ok(m0.reactions.some((r: any) => r.reaction_type === "realm_emoji" && r.emoji_name === "party_parrot"));
    const upload = await fetch(`${srv.url}/user_uploads/${fixture.pathId}`, { headers: { authorization: `Basic ${Buffer.from(`${owner.email}:${owner.apiKey}`).toString("base64")}`, host: `zulipdev.${new URL(srv.app.config.externalUrl).host}` } });
    assert.equal(upload.status, 200);
    assert.equal(await upload.text(), "hello notes");

    // Edit history, and the sender of the cross-realm bot's message.
    const history = await ok(api.get(`/messages/${fixture.messageIds[1]}/history`));
    assert.ok(history.message_history.some((h: any) => h.prev_topic === "old topic"));
    const fromBot = await ok(api.get("/messages", { anchor: fixture.messageIds[3], num_before: 0, num_after: 0 } as never));
    assert.equal(fromBot.messages[0].sender_email, "notification-bot@zulip.com");

    // Subscriptions with colors and mute state; groups; topics; profile fields; emoji; linkifiers.
    const admin = apiFor("zulipdev", await credentials(srv.app, realm.id, fixture.userIds.admin));
    const { subscriptions } = await ok(admin.get("/users/me/subscriptions"));
    assert.deepEqual(subscriptions.map((s: any) => s.name).sort(), ["channel 1", "channel 2", "general"]);
    const muter = apiFor("zulipdev", await credentials(srv.app, realm.id, fixture.userIds.members[1]!));
    const mutedSubs = (await ok(muter.get("/users/me/subscriptions"))).subscriptions;
    assert.equal(mutedSubs.find((s: any) => s.name === "channel 2").is_muted, true);
    const reg = await ok(api.post("/register", { fetch_event_types: JSON.stringify(["realm_user_groups", "user_topic", "realm_emoji", "realm_linkifiers", "default_streams", "custom_profile_fields", "message", "update_message_flags", "realm"]), client_capabilities: JSON.stringify({ linkifier_url_template: true }) }));
    const backend = reg.realm_user_groups.find((g: any) => g.name === "backend");
    assert.deepEqual(backend.members.sort(), [fixture.userIds.members[0], fixture.userIds.members[1]].sort());
    assert.ok(reg.user_topics.some((t: any) => t.topic_name === "Release" && t.visibility_policy === 3));
    assert.ok(Object.values(reg.realm_emoji).some((e: any) => e.name === "party_parrot"));
    assert.equal(reg.realm_linkifiers[0].url_template, "https://github.com/zulip/zulip/issues/{id}");
    assert.deepEqual(reg.realm_default_streams.map((s: any) => s.stream_id ?? s), [fixture.streamIds[0]]);
    assert.equal(reg.realm_default_language, "de");
    assert.equal(reg.realm_mandatory_topics, true);

    // Unread counts follow the exported read flags.
    const register = await ok(api.post("/register", { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) }));
    const expectedUnread = countUnread(fixture.dir, fixture.userIds.owner);
    assert.equal(register.unread_msgs.count, expectedUnread);
  });

  test("a second import of the same export renumbers ids and rewrites mentions and uploads", async () => {
    const summary = await importFile(srv.app, fixture.dir, "second");
    assert.deepEqual(summary.idsKept, { users: false, messages: false });
    const realm = (await getRealmByStringId(srv.app.db, "second"))!;
    const owner = await srv.app.db.selectFrom("users").selectAll().where("realm_id", "=", realm.id).where("delivery_email", "=", "owner@example.com").executeTakeFirstOrThrow();
    const adminRow = await srv.app.db.selectFrom("users").selectAll().where("realm_id", "=", realm.id).where("delivery_email", "=", "admin@example.com").executeTakeFirstOrThrow();
    const api = apiFor("second", { email: owner.delivery_email, apiKey: owner.api_key });
    const { messages } = await ok(api.get("/messages", { anchor: "oldest", num_before: 0, num_after: 1 } as never));
    assert.match(messages[0].content, new RegExp(`data-user-id="${adminRow.id}"`));
    const general = await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", realm.id).where("name", "=", "general").executeTakeFirstOrThrow();
    assert.match(messages[0].content, new RegExp(`data-stream-id="${general.id}"`));
    const link = /\/user_uploads\/([^"]+)"/.exec(messages[0].content)![1]!;
    assert.ok(link.startsWith(`${realm.id}/`));
    const res = await fetch(`${srv.url}/user_uploads/${link}`, { headers: { authorization: `Basic ${Buffer.from(`${owner.delivery_email}:${owner.api_key}`).toString("base64")}`, host: `second.${new URL(srv.app.config.externalUrl).host}` } });
    assert.equal(res.status, 200);
  });

  describe("refuses bad input, changing nothing", () => {
    async function refusedWith(file: string, message: RegExp, stringId?: string) {
      const before = await tableCounts(srv.app);
      await assert.rejects(() => importFile(srv.app, file, stringId), (err: Error) => {
        assert.ok(err instanceof ZulipImportError, String(err));
        assert.match(err.message, message);
        return true;
      });
      assert.deepEqual(await tableCounts(srv.app), before);
    }

    test("a string id that already exists", async () => {
      await refusedWith(tarball, /organization with string id 'zulipdev' already exists/);
    });

    test("a string id Zulip wouldn't accept as a subdomain", async () => {
      await refusedWith(fixture.dir, /'Bad_Id' can't be a string id/, "Bad_Id");
    });

    test("a truncated tarball", async () => {
      const bytes = fs.readFileSync(tarball);
      const cut = path.join(tmp, "truncated.tar.gz");
      fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      await refusedWith(cut, /damaged or truncated/, "trunc");
    });

    test("an unsupported Zulip version", async () => {
      const root = path.join(tmp, "old");
      const w = writeZulipExport(root, { messages: 10, zulipVersion: "4.11" });
      await refusedWith(w.dir, /from Zulip 4\.11; Confab imports exports of Zulip 8\.x to 12\.x/, "old");
    });

    test("not an export at all", async () => {
      const empty = path.join(tmp, "empty");
      fs.mkdirSync(empty);
      await refusedWith(empty, /no realm\.json/, "empty");
    });

    test("an entry over the size cap is refused from its header (a '10 GB' file)", async () => {
      const file = path.join(tmp, "huge.tar.gz");
      const header = new tar.Header({ path: "zulip-export-x/uploads/huge.bin", size: 10 * 1024 ** 3, type: "File", mode: 0o644, mtime: new Date(0) });
      const block = Buffer.alloc(512);
      header.encode(block, 0);
      // Only the header and a little data: reading the entry would fail on truncation instead.
      fs.writeFileSync(file, zlib.gzipSync(Buffer.concat([block, Buffer.alloc(4096)])));
      await refusedWith(file, /huge\.bin" is 10240 MiB, over the limit of 1024 MiB/, "huge");
    });

    test("a path leaving the archive", async () => {
      const file = path.join(tmp, "evil.tar.gz");
      const header = new tar.Header({ path: "../evil.txt", size: 4, type: "File", mode: 0o644, mtime: new Date(0) });
      const block = Buffer.alloc(512);
      header.encode(block, 0);
      const data = Buffer.alloc(512);
      data.write("evil");
      fs.writeFileSync(file, zlib.gzipSync(Buffer.concat([block, data, Buffer.alloc(1024)])));
      await refusedWith(file, /entry outside its directory/, "evil");
      assert.equal(fs.existsSync(path.join(os.tmpdir(), "evil.txt")), false);
    });
  });

  test("the CLI imports and prints a summary and the bots' new keys", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const env = { CONFAB_DATA_DIR: srv.dataDir, DATABASE_URL: srv.app.config.databaseUrl ?? "", LOG_LEVEL: "silent" };
    const code = await manage(["import", "zulip", tarball, "--realm", "viacli", "--print-bot-keys"], env, { out: (t) => out.push(t), err: (t) => err.push(t) });
    assert.equal(code, 0, err.join("\n"));
    const text = out.join("\n");
    assert.match(text, /Imported organization 'Zulip Dev' \(string id 'viacli'/);
    assert.match(text, /messages\s+2500/);
    assert.match(text, /bot helper-bot@zulip\.example\.com \S{32}/);
    assert.match(err.join("\n"), /100% 2500\/2500/);
    const again = await manage(["import", "zulip", tarball, "--realm", "viacli"], env, { out: () => {}, err: (t) => err.push(t) });
    assert.equal(again, 1);
    assert.match(err.join("\n"), /already exists/);
  });
});

describe("export in Zulip's format, then import", () => {
  test("round trip of the development organization into an empty database", async () => {
    const source = await startTestServer();
    const target = await startTestServer();
    try {
      const org = await seedDevOrganization(source.app);
      // An upload linked from a message, so files travel too.
      const iago = org.people.iago;
      const form = new FormData();
      form.append("file", new Blob(["round trip file"], { type: "text/plain" }), "trip.txt");
      const up = await (await fetch(`${source.url}/api/v1/user_uploads`, { method: "POST", body: form, headers: { authorization: `Basic ${Buffer.from(`${iago.delivery_email}:${iago.api_key}`).toString("base64")}` } })).json();
      await ok(new Api(source.url, { email: iago.delivery_email, apiKey: iago.api_key }).post("/messages", { type: "stream", to: "Denmark", topic: "files", content: `[trip](${up.url})` }));
      const file = path.join(tmp, "roundtrip.tar.gz");
      await exportZulipFormat(source.app, org.realm, file);
      // Zulip's layout: one top-level directory with realm.json, messages files and the records.
      const entries: string[] = [];
      await tar.list({ file, onReadEntry: (e) => entries.push(e.path) });
      const top = entries[0]!.split("/")[0]!;
      assert.ok(entries.every((e) => e.startsWith(`${top}/`)));
      for (const f of ["realm.json", "messages-000001.json", "attachment.json", "migration_status.json", "uploads/records.json", "avatars/records.json", "emoji/records.json"]) {
        assert.ok(entries.includes(`${top}/${f}`), f);
      }
      const unpacked = path.join(tmp, "unpacked");
      fs.mkdirSync(unpacked);
      await tar.extract({ file, cwd: unpacked });
      const realmJson = JSON.parse(fs.readFileSync(path.join(unpacked, top, "realm.json"), "utf8"));
      assert.equal(realmJson.zerver_realm[0].string_id, "zulip");
      assert.equal(typeof realmJson.zerver_realm[0].date_created, "number");
      assert.ok(!("props" in realmJson.zerver_realm[0]) && !("email_address_visibility" in realmJson.zerver_realm[0]));
      assert.deepEqual(realmJson.zerver_userprofile_crossrealm.map((b: any) => b.email).sort(), ["emailgateway@zulip.com", "notification-bot@zulip.com", "welcome-bot@zulip.com"]);
      assert.ok(realmJson.zerver_userprofile.every((u: any) => !("password" in u) && !("api_key" in u) && typeof u.role === "number"));
      const chunk = JSON.parse(fs.readFileSync(path.join(unpacked, top, "messages-000001.json"), "utf8"));
      assert.ok(chunk.zerver_usermessage.every((um: any) => typeof um.flags_mask === "number" && !("flags" in um)));
      const dm = chunk.zerver_message.find((m: any) => !m.is_channel_message);
      if (dm) assert.ok(chunk.zerver_usermessage.filter((um: any) => um.message === dm.id).every((um: any) => um.flags_mask & 2048));

      const summary = await importFile(target.app, file);
      assert.deepEqual(summary.idsKept, { users: true, messages: true });
      const [a, b] = [source.app.db, target.app.db];
      const realmB = (await getRealmByStringId(b, "zulip"))!;

      const messageColumns = ["id", "sender_id", "stream_id", "topic", "dm_key", "content", "rendered_content", "date_sent", "edit_history"] as const;
      assert.deepEqual(
        await b.selectFrom("messages").select(messageColumns).where("realm_id", "=", realmB.id).orderBy("id").execute(),
        await a.selectFrom("messages").select(messageColumns).where("realm_id", "=", org.realm.id).orderBy("id").execute(),
      );
      const copies = (db: typeof a) => db.selectFrom("user_messages").selectAll().orderBy("message_id").orderBy("user_id").execute();
      assert.deepEqual(await copies(b), await copies(a));
      const reactions = (db: typeof a) => db.selectFrom("reactions").select(["message_id", "user_id", "emoji_name", "emoji_code", "reaction_type"]).orderBy("message_id").orderBy("user_id").orderBy("emoji_code").execute();
      assert.deepEqual(await reactions(b), await reactions(a));
      // Channels got their own ids in the target only if they collided: here they are kept too.
      const subs = async (db: typeof a) =>
        (await db.selectFrom("subscriptions").innerJoin("streams", "streams.id", "subscriptions.stream_id").select(["user_id", "streams.name", "active", "color", "props"]).orderBy("user_id").orderBy("streams.name").execute()).map((s) => ({ ...s, props: { ...SUBSCRIPTION_PROP_DEFAULTS, ...JSON.parse(s.props) } }));
      assert.deepEqual(await subs(b), await subs(a));
      const attachments = (db: typeof a) => db.selectFrom("attachments").select(["path_id", "file_name", "size", "owner_id"]).orderBy("path_id").execute();
      assert.deepEqual(await attachments(b), await attachments(a));
      const pathId = (await attachments(b))[0]!.path_id;
      const res = await fetch(`${target.url}/user_uploads/${pathId}`, { headers: { authorization: `Basic ${Buffer.from(`${iago.delivery_email}:${(await credentials(target.app, realmB.id, iago.id)).apiKey}`).toString("base64")}` } });
      assert.equal(await res.text(), "round trip file");

      // The API agrees: the same messages and unread counts for a member.
      const hamlet = org.people.hamlet;
      const apiA = new Api(source.url, { email: hamlet.delivery_email, apiKey: hamlet.api_key });
      const apiB = new Api(target.url, await credentials(target.app, realmB.id, hamlet.id));
      const page = { anchor: "newest", num_before: 100, num_after: 0 } as never;
      const strip = (ms: any[]) => ms.map(({ avatar_url: _a, ...m }) => m);
      assert.deepEqual(strip((await ok(apiB.get("/messages", page))).messages), strip((await ok(apiA.get("/messages", page))).messages));
      const unread = async (api: Api) => (await ok(api.post("/register", { fetch_event_types: JSON.stringify(["message", "update_message_flags"]) }))).unread_msgs;
      assert.deepEqual(await unread(apiB), await unread(apiA));
    } finally {
      await source.close();
      await target.close();
    }
  });
});

function countUnread(dir: string, userId: number): number {
  let n = 0;
  for (const f of fs.readdirSync(dir).filter((x) => x.startsWith("messages-"))) {
    const data = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
    for (const um of data.zerver_usermessage) if (um.user_profile === userId && !(um.flags_mask & 1)) n++;
  }
  return n;
}
