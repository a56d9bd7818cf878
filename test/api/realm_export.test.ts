import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused } from "../helpers/channels.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { setUserProp } from "../../src/store/users.js";
import { main as manage } from "../../src/cli/manage.js";

const NOW = 1_700_000_000;
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(32, 7)]);

async function postFile(u: TestUser, route: string, name: string, type: string, data: string | Buffer) {
  const form = new FormData();
  form.append("file", new Blob([typeof data === "string" ? data : new Uint8Array(data)], { type }), name);
  const res = await fetch(`${srv.url}/api/v1${route}`, { method: "POST", body: form, headers: { authorization: basicAuth(u) } });
  const body = await res.json();
  assert.equal(body.result, "success", JSON.stringify(body));
  return body;
}
let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);

before(async () => {
  clock = new ManualClock(NOW);
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("realm_exports").execute();
  await setUserProp(srv.app.db, t.owner.id, "allow_private_data_export", false);
});

async function finishedExport(u: TestUser, exportType = 1) {
  const { id } = await ok(api(u).post("/export/realm", { export_type: exportType }));
  await backgroundSettled(srv.app);
  const { exports } = await ok(api(u).get("/export/realm"));
  return exports.find((e: { id: number }) => e.id === id);
}

describe("POST /export/realm", () => {
  test("only administrators may export", async () => {
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      await refused(srv, () => api(u).post("/export/realm"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
      await refused(srv, () => api(u).get("/export/realm"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
      await refused(srv, () => api(u).get("/export/realm/consents"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    for (const u of [t.owner, t.admin]) {
      const e = await finishedExport(u);
      assert.equal(e.acting_user_id, u.id);
    }
  });

  test("refuses an unknown export type", async () => {
    await refused(srv, () => api(t.admin).post("/export/realm", { export_type: 3 }), "Invalid export_type");
    await refused(srv, () => api(t.admin).post("/export/realm", { export_type: "x" }), "export_type is not valid JSON");
  });

  test("an export with private data needs an owner's consent", async () => {
    await refused(
      srv,
      () => api(t.admin).post("/export/realm", { export_type: 2 }),
      `Make sure at least one Organization Owner is consenting to the export or contact ${srv.app.config.emailFrom} for help.`,
    );
    await setUserProp(srv.app.db, t.owner.id, "allow_private_data_export", true);
    const e = await finishedExport(t.admin, 2);
    assert.equal(e.export_type, 2);
  });

  test("a public export needs an owner whose address administrators may see", async () => {
    await setUserProp(srv.app.db, t.owner.id, "email_address_visibility", 4);
    try {
      await refused(
        srv,
        () => api(t.admin).post("/export/realm", { export_type: 1 }),
        `Make sure at least one Organization Owner allows other Administrators to see their email address or contact ${srv.app.config.emailFrom} for help`,
      );
    } finally {
      await setUserProp(srv.app.db, t.owner.id, "email_address_visibility", 1);
    }
  });

  test("five exports a week, as Zulip allows", async () => {
    for (let i = 0; i < 5; i++) await ok(api(t.admin).post("/export/realm"));
    await backgroundSettled(srv.app);
    await refused(srv, () => api(t.admin).post("/export/realm"), "Exceeded rate limit.");
    await ok(api(o.admin).post("/export/realm"));
    clock.advance(7 * 24 * 3600 + 1);
    await ok(api(t.admin).post("/export/realm"));
    await backgroundSettled(srv.app);
  });

  test("administrators' queues hear it pending, then finished; nobody else's do", async () => {
    const queue = async (u: TestUser) => (await ok(api(u).post("/register", { event_types: ["realm_export"] }))).queue_id as string;
    const [ownerQ, adminQ, memberQ, otherQ] = [await queue(t.owner), await queue(t.admin), await queue(t.member), await queue(o.admin)];
    const { id } = await ok(api(t.admin).post("/export/realm"));
    await backgroundSettled(srv.app);
    for (const [u, q] of [[t.owner, ownerQ], [t.admin, adminQ]] as const) {
      const { events } = await ok(api(u).get("/events", { queue_id: q, last_event_id: -1, dont_block: true }));
      const states = events.map((e: { exports: { id: number; pending: boolean; export_url: string | null }[] }) =>
        e.exports.find((x) => x.id === id),
      );
      assert.equal(events.every((e: { type: string }) => e.type === "realm_export"), true);
      assert.deepEqual(states.map((s: { pending: boolean }) => s.pending), [true, false]);
      assert.equal(states[0].export_url, null);
      assert.match(states[1].export_url, /^http:\/\/.*\/user_avatars\/exports\/\d+\/[\w-]+\/confab-export-zulip-\d+\.tar\.gz$/);
    }
    for (const [u, q] of [[t.member, memberQ], [o.admin, otherQ]] as const) {
      const { events } = await ok(api(u).get("/events", { queue_id: q, last_event_id: -1, dont_block: true }));
      assert.deepEqual(events, []);
    }
  });
});

describe("GET /export/realm and downloads", () => {
  test("lists the organization's exports in Zulip's shape, and the archive downloads", async () => {
    const e = await finishedExport(t.owner);
    assert.deepEqual(Object.keys(e).sort(), [
      "acting_user_id", "deleted_timestamp", "export_time", "export_type", "export_url", "failed_timestamp", "id", "pending",
    ]);
    assert.equal(e.export_time, clock.now());
    assert.deepEqual((await ok(api(o.admin).get("/export/realm"))).exports, []);
    const res = await fetch(e.export_url.replace(/^http:\/\/[^/]+/, srv.url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/gzip");
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b]);
    const wrong = await fetch(e.export_url.replace(/^http:\/\/[^/]+/, srv.url).replace(/exports\/(\d+)\/[\w-]+\//, "exports/$1/guess/"));
    assert.equal(wrong.status, 404);
  });

  test("DELETE removes the archive and keeps the record", async () => {
    const e = await finishedExport(t.admin);
    await refused(srv, () => api(t.member).delete(`/export/realm/${e.id}`), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    await refused(srv, () => api(o.admin).delete(`/export/realm/${e.id}`), "Invalid data export ID");
    await ok(api(t.admin).delete(`/export/realm/${e.id}`));
    const [after] = (await ok(api(t.admin).get("/export/realm"))).exports;
    assert.equal(after.deleted_timestamp, clock.now());
    assert.equal(after.export_url, null);
    assert.equal((await fetch(e.export_url.replace(/^http:\/\/[^/]+/, srv.url))).status, 404);
    await refused(srv, () => api(t.admin).delete(`/export/realm/${e.id}`), "Export already deleted");
    await refused(srv, () => api(t.admin).delete("/export/realm/99999999999"), "Invalid data export ID");
  });
});

describe("GET /export/realm/consents", () => {
  test("every active person's consent, bots left out", async () => {
    await setUserProp(srv.app.db, t.member.id, "allow_private_data_export", true);
    try {
      const { export_consents } = await ok(api(t.admin).get("/export/realm/consents"));
      const people = [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest];
      assert.deepEqual(
        export_consents,
        people.map((u) => ({ user_id: u.id, consented: u === t.member })),
      );
    } finally {
      await setUserProp(srv.app.db, t.member.id, "allow_private_data_export", false);
    }
  });
});

describe("import-realm", () => {
  async function exportArchive(exportType: number): Promise<string> {
    const e = await finishedExport(t.owner, exportType);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "confab-archive-")), "export.tar.gz");
    fs.writeFileSync(file, Buffer.from(await (await fetch(e.export_url.replace(/^http:\/\/[^/]+/, srv.url))).arrayBuffer()));
    return file;
  }

  async function importInto(target: TestServer, file: string) {
    const out: string[] = [];
    const err: string[] = [];
    const env = { CONFAB_DATA_DIR: target.dataDir, DATABASE_URL: target.app.config.databaseUrl ?? "", LOG_LEVEL: "silent" };
    const code = await manage(["import-realm", "--file", file], env, { out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  }

  test("a full export loads into an empty server and reads back the same", async () => {
    const pub = await makeChannel(srv, t, { subscribers: [t.member] });
    const priv = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    await ok(api(t.member).post("/messages", { type: "stream", to: pub.id, topic: "export", content: "public **words**" }));
    await ok(api(t.member).post("/messages", { type: "stream", to: priv.id, topic: "secret", content: "private words" }));
    await ok(api(t.owner).post("/messages", { type: "private", to: [t.member.id], content: "a direct word" }));
    await ok(api(t.member).post("/drafts", { drafts: [{ type: "stream", to: [pub.id], topic: "t", content: "draft" }] }));
    const fileUrl = (await postFile(t.member, "/user_uploads", "notes.txt", "text/plain", "exported words")).url as string;
    await ok(api(t.member).post("/messages", { type: "stream", to: pub.id, topic: "export", content: `[notes](${fileUrl})` }));
    await postFile(t.admin, "/realm/emoji/exported", "e.png", "image/png", PNG);
    await setUserProp(srv.app.db, t.owner.id, "allow_private_data_export", true);
    await setUserProp(srv.app.db, t.member.id, "allow_private_data_export", true);
    const file = await exportArchive(2);
    await setUserProp(srv.app.db, t.member.id, "allow_private_data_export", false);

    const target = await startTestServer({}, { clock });
    try {
      const r = await importInto(target, file);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^Imported organization 'Test zulip' \(string id 'zulip', id \d+\): \d+ rows\.$/);
      const same = async (u: TestUser, route: string, params?: Record<string, unknown>) =>
        assert.deepEqual(
          (await ok(new Api(target.url, u).get(route, params as never))),
          (await ok(api(u).get(route, params as never))),
          route,
        );
      for (const u of [t.owner, t.member, t.guest]) {
        await same(u, "/users");
        await same(u, "/streams");
        await same(u, "/users/me/subscriptions");
        await same(u, "/messages", { anchor: "newest", num_before: 50, num_after: 0 });
        await same(u, "/drafts");
        await same(u, "/realm/emoji");
        await same(u, "/attachments");
      }
      const download = async (s: TestServer, route: string) =>
        Buffer.from(await (await fetch(`${s.url}${route}`, { headers: { authorization: basicAuth(t.member) } })).arrayBuffer());
      assert.equal((await download(target, fileUrl)).toString(), "exported words");
      const { emoji } = await ok(api(t.member).get("/realm/emoji"));
      const image = (Object.values(emoji) as { name: string; source_url: string }[]).find((e) => e.name === "exported")!;
      assert.deepEqual(await download(target, image.source_url), PNG);
      const sent = await ok(new Api(target.url, t.member).post("/messages", { type: "stream", to: pub.id, topic: "after", content: "hi" }));
      assert.ok(sent.id > 0);
      const again = await importInto(target, file);
      assert.equal(again.code, 1);
      assert.match(again.err, /already holds an organization/);
    } finally {
      await target.close();
    }
  });

  test("a public export leaves out private channels, direct messages and personal data", async () => {
    const priv = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    await ok(api(t.member).post("/messages", { type: "stream", to: priv.id, topic: "secret", content: "private words" }));
    await ok(api(t.owner).post("/messages", { type: "private", to: [t.member.id], content: "a direct word" }));
    await ok(api(t.member).post("/drafts", { drafts: [{ type: "private", to: [t.owner.id], topic: "", content: "draft" }] }));
    const file = await exportArchive(1);
    const target = await startTestServer({}, { clock });
    try {
      assert.equal((await importInto(target, file)).code, 0);
      const contents = (await target.app.db.selectFrom("messages").select("content").execute()).map((m) => m.content);
      assert.ok(contents.length > 0);
      assert.ok(!contents.includes("private words"));
      assert.ok(!contents.includes("a direct word"));
      assert.equal((await target.app.db.selectFrom("drafts").selectAll().execute()).length, 0);
      assert.equal((await target.app.db.selectFrom("users").selectAll().execute()).length > 0, true);
    } finally {
      await target.close();
    }
  });

  test("refuses what is not an export", async () => {
    const target = await startTestServer({}, { clock });
    try {
      const junk = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "confab-junk-")), "junk.tar.gz");
      fs.writeFileSync(junk, "not an archive");
      const r = await importInto(target, junk);
      assert.equal(r.code, 1);
      assert.match(r.err, /not a Confab organization export/);
      const missing = await importInto(target, "/nonexistent/export.tar.gz");
      assert.equal(missing.code, 1);
      assert.match(missing.err, /No such file/);
    } finally {
      await target.close();
    }
  });
});

describe("the schema", () => {
  test("every table belongs to an organization or is about this server, so exports miss nothing", async () => {
    const { listTables } = await import("../../src/store/realm_tables.js");
    const { UNEXPORTED_TABLES } = await import("../../src/domain/realm_export.js");
    const unscoped = (await listTables(srv.app.db)).filter((t) => !t.scope && !UNEXPORTED_TABLES.has(t.name)).map((t) => t.name);
    assert.deepEqual(unscoped, []);
  });
});
