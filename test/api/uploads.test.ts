import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zulip from "zulip-js";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel, setRealmProps } from "../helpers/channels.js";
import { multipart, type Part } from "../helpers/multipart.js";

const NOW = 1700000000;
const MAX_MIB = 1;

let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);

async function upload(u: TestUser | null, parts: Part[], fields: Record<string, string> = {}, route = "/user_uploads"): Promise<ApiResponse> {
  const { body, type } = multipart(parts, fields);
  const headers: Record<string, string> = { "content-type": type, ...(u ? { authorization: basicAuth(u) } : {}) };
  const res = await fetch(`${srv.url}/api/v1${route}`, { method: "POST", headers, body });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function uploaded(u: TestUser, fileName = "notes.txt", data: string | Buffer = "hello", type = "text/plain"): Promise<string> {
  const r = await upload(u, [{ fileName, data, type }]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.url;
}

/** Fetches a file URL the way clients fetch message images: with API-key Basic auth, or without. */
const download = (url: string, u?: TestUser) =>
  fetch(srv.url + url, { headers: u ? { authorization: basicAuth(u) } : {}, redirect: "manual" });

async function send(u: TestUser, params: Record<string, unknown>): Promise<number> {
  const r = await api(u).post("/messages", params as Record<string, string>);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}

const attachmentRows = () => srv.app.db.selectFrom("attachments").selectAll().orderBy("id").execute();
const storedFiles = () => {
  const root = path.join(srv.dataDir, "uploads", "files");
  return fs.existsSync(root) ? fs.readdirSync(root, { recursive: true }).filter((f) => fs.statSync(path.join(root, String(f))).isFile()) : [];
};

before(async () => {
  clock = new ManualClock(NOW);
  srv = await startTestServer({ maxFileUploadSizeMib: MAX_MIB }, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  clock.current = NOW;
  await srv.app.db.deleteFrom("attachments").execute();
});

describe("POST /user_uploads", () => {
  test("any user may upload; the URL names the realm and the sanitized name; only the uploader is told", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const log = new EventLog(srv);
      const r = await upload(u, [{ fileName: "My report (final).txt", data: "report body", type: "text/plain" }]);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const { url } = r.body;
      assert.match(url, new RegExp(`^/user_uploads/${t.realm.id}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/My-report-final\\.txt$`));
      assert.deepEqual(r.body, { result: "success", msg: "", uri: url, url, filename: "My report (final).txt" });
      const [row] = (await attachmentRows()).filter((a) => a.owner_id === u.id);
      const attachment = {
        id: row.id,
        name: "My report (final).txt",
        path_id: url.slice("/user_uploads/".length),
        size: 11,
        create_time: NOW * 1000,
        messages: [],
      };
      assert.deepEqual(log.stop(), [
        {
          realmId: t.realm.id,
          event: { type: "attachment", op: "add", attachment, upload_space_used: Number((await attachmentRows()).reduce((s, a) => s + Number(a.size), 0)) },
          userIds: [u.id],
        },
      ]);
      const res = await download(url, u);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "report body");
    }
  });

  test("names are sanitized as Zulip does, keeping letters of any script", async () => {
    const cases: [string, string][] = [
      ["café ☕ menu.txt", "café-menu.txt"],
      ["  spaced   out -- name.pdf", "spaced-out-name.pdf"],
      // The part's name is cut to its last path component first.
      ["<script>alert(1)</script>.html", "script.html"],
      ["evil/../../passwd", "passwd"],
      ["..", "uploaded-file"],
      ["%E2%9C%93 check.txt", "check.txt"],
    ];
    for (const [given, stored] of cases) {
      const r = await upload(t.member, [{ fileName: given, data: "x" }]);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(decodeURIComponent(r.body.url.split("/").pop()), stored, given);
    }
    const long = "a".repeat(300) + ".txt";
    const r = await upload(t.member, [{ fileName: long, data: "x" }]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.url.split("/").pop(), "a".repeat(251) + ".txt");
    assert.equal(r.body.filename, long);
  });

  test("no file, two files and a file over the limit are refused, storing nothing", async () => {
    const refuse = async (parts: Part[], msg: string, fields?: Record<string, string>) => {
      const log = new EventLog(srv);
      const r = await upload(t.member, parts, fields);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST" });
      assert.deepEqual(log.stop(), []);
      assert.deepEqual(await attachmentRows(), []);
      assert.equal(storedFiles().length, before);
    };
    const before = storedFiles().length;
    await refuse([], "You must specify a file to upload", { note: "no file here" });
    await refuse(
      [
        { fileName: "a.txt", data: "a" },
        { fileName: "b.txt", data: "b" },
      ],
      "You may only upload one file at a time",
    );
    await refuse(
      [{ fileName: "big.bin", data: Buffer.alloc(MAX_MIB * 1024 * 1024 + 1) }],
      `File is larger than this server's configured maximum upload size (${MAX_MIB} MiB).`,
    );
    const exact = await upload(t.member, [{ fileName: "exact.bin", data: Buffer.alloc(MAX_MIB * 1024 * 1024) }]);
    assert.equal(exact.status, 200, JSON.stringify(exact.body));
  });

  test("on a Zulip Cloud plan the refusal names the plan", async () => {
    await setRealmProps(srv.app, t.realm.id, { plan_type: 2 });
    try {
      const r = await upload(t.member, [{ fileName: "big.bin", data: Buffer.alloc(MAX_MIB * 1024 * 1024 + 1) }]);
      assert.equal(r.body.msg, `File is larger than the maximum upload size (${MAX_MIB} MiB) allowed by your organization's plan.`);
    } finally {
      await setRealmProps(srv.app, t.realm.id, { plan_type: 1 });
    }
  });

  test("requires authentication", async () => {
    const r = await upload(null, [{ fileName: "a.txt", data: "a" }]);
    assert.equal(r.status, 401);
  });

  test("zulip-js uploads a file with callEndpoint, and the file downloads back", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-upload-"));
    const file = path.join(dir, "zulip js.txt");
    fs.writeFileSync(file, "sent by zulip-js");
    const client = await zulip({ username: t.member.email, apiKey: t.member.apiKey, realm: srv.url });
    const r = await client.callEndpoint("/user_uploads", "POST", { file: fs.createReadStream(file) });
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(r.result, "success", JSON.stringify(r));
    assert.equal(r.filename, "zulip js.txt");
    assert.match(r.url, /\/zulip-js\.txt$/);
    const res = await download(r.url, t.member);
    assert.equal(await res.text(), "sent by zulip-js");
    const emoji = await client.emojis.retrieve();
    assert.deepEqual(emoji, { result: "success", msg: "", emoji: {} });
  });
});

describe("downloading /user_uploads/…", () => {
  test("serves inline only safe types, always with nosniff and a locked-down CSP", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const cases: [string, string, Buffer | string, string][] = [
      ["pic.png", "image/png", png, 'inline; filename="pic.png"'],
      ["page.html", "text/html", "<script>alert(1)</script>", 'attachment; filename="page.html"'],
      ["drawing.svg", "image/svg+xml", "<svg/>", 'attachment; filename="drawing.svg"'],
      ["doc.pdf", "application/pdf", "%PDF-1.4", 'inline; filename="doc.pdf"'],
      ["naïve file.txt", "text/plain", "plain", "inline; filename*=utf-8''na%C3%AFve%20file.txt"],
    ];
    for (const [name, type, data, disposition] of cases) {
      const url = await uploaded(t.member, name, data as string, type);
      const res = await download(url, t.member);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("content-disposition"), disposition);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.match(res.headers.get("content-security-policy")!, /^default-src 'none';/);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), Buffer.from(data));
      const forced = await download(url.replace("/user_uploads/", "/user_uploads/download/"), t.member);
      assert.match(forced.headers.get("content-disposition")!, /^attachment;/);
    }
  });

  test("serves byte ranges, as media players ask for them", async () => {
    const url = await uploaded(t.member, "clip.mp4", "0123456789", "video/mp4");
    const ranged = (range: string) => fetch(srv.url + url, { headers: { authorization: basicAuth(t.member), range } });
    const cases: [string, number, string, string | null][] = [
      ["bytes=2-5", 206, "2345", "bytes 2-5/10"],
      ["bytes=7-", 206, "789", "bytes 7-9/10"],
      ["bytes=-3", 206, "789", "bytes 7-9/10"],
      ["bytes=8-100", 206, "89", "bytes 8-9/10"],
      ["bytes=0-1,4-5", 200, "0123456789", null],
      ["items=0-1", 200, "0123456789", null],
    ];
    for (const [range, status, body, contentRange] of cases) {
      const res = await ranged(range);
      assert.equal(res.status, status, range);
      assert.equal(await res.text(), body, range);
      assert.equal(res.headers.get("content-range"), contentRange, range);
      assert.equal(res.headers.get("accept-ranges"), "bytes");
    }
    const outside = await ranged("bytes=10-");
    assert.equal(outside.status, 416);
    assert.equal(outside.headers.get("content-range"), "bytes */10");
  });

  test("an unlinked file is the uploader's alone", async () => {
    const url = await uploaded(t.member);
    for (const u of [t.owner, t.admin, t.member2, t.guest, t.bot, o.owner]) {
      const res = await download(url, u);
      assert.equal(res.status, 403, u.email);
      assert.equal(await res.text(), "<p>You are not authorized to view this file.</p>");
    }
    const anonymous = await download(url);
    assert.equal(anonymous.status, 302);
    assert.equal(anonymous.headers.get("location"), `/login/?next=${encodeURIComponent(url)}`);
    const missing = await download(url.replace(/[^/]+$/, "other.txt"), t.member);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), "<p>This file does not exist or has been deleted.</p>");
    const wrongKey = await fetch(srv.url + url, { headers: { authorization: basicAuth({ email: t.member.email, apiKey: "x".repeat(32) }) } });
    assert.equal(wrongKey.status, 401);
  });

  test("a message in a public channel opens the file to the organization's members, not guests or others", async () => {
    const channel = await makeChannel(srv, t, { subscribers: [t.member] });
    const url = await uploaded(t.member);
    await send(t.member, { type: "stream", to: channel.name, topic: "files", content: `[notes](${url})` });
    for (const u of [t.owner, t.admin, t.moderator, t.member2, t.bot]) assert.equal((await download(url, u)).status, 200, u.email);
    for (const u of [t.guest, o.owner, o.member]) assert.equal((await download(url, u)).status, 403, u.email);
    assert.equal((await download(url)).status, 302);
  });

  test("a message in a private channel opens it to those who can read that message", async () => {
    const channel = await makeChannel(srv, t, { private: true, subscribers: [t.member, t.guest] });
    const url = await uploaded(t.member);
    await send(t.member, { type: "stream", to: channel.name, topic: "files", content: `[notes](${url})` });
    for (const u of [t.owner, t.guest]) assert.equal((await download(url, u)).status, 200, u.email);
    for (const u of [t.admin, t.member2, o.owner]) assert.equal((await download(url, u)).status, 403, u.email);
  });

  test("a direct message opens it to its recipients only", async () => {
    const url = await uploaded(t.member);
    await send(t.member, { type: "direct", to: JSON.stringify([t.guest.id]), content: `see ${srv.app.config.externalUrl}${url}` });
    assert.equal((await download(url, t.guest)).status, 200);
    for (const u of [t.owner, t.member2]) assert.equal((await download(url, u)).status, 403, u.email);
  });

  test("a file in a web-public channel is open to spectators when the organization allows them", async () => {
    await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: true });
    const channel = await makeChannel(srv, t, { subscribers: [t.member], extra: { is_web_public: true } });
    const url = await uploaded(t.member);
    await send(t.member, { type: "stream", to: channel.name, topic: "files", content: `[notes](${url})` });
    await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: false });
    assert.equal((await download(url)).status, 302);
    await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: true });
    assert.equal((await download(url)).status, 200);
    assert.equal((await download(url, o.member)).status, 403);
  });

  test("moving the linking message between channels moves who may read the file", async () => {
    const open = await makeChannel(srv, t, { subscribers: [t.member] });
    const closed = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const url = await uploaded(t.member);
    const id = await send(t.member, { type: "stream", to: open.name, topic: "files", content: `[notes](${url})` });
    assert.equal((await download(url, t.member2)).status, 200);
    const move = async (to: number) => {
      const r = await api(t.owner).patch(`/messages/${id}`, { stream_id: to, propagate_mode: "change_one" });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    await move(closed.id);
    assert.equal((await download(url, t.member2)).status, 403);
    assert.equal((await download(url, t.member)).status, 200);
    await move(open.id);
    assert.equal((await download(url, t.member2)).status, 200);
  });

  test("someone who may not read a file cannot claim it by linking it", async () => {
    const url = await uploaded(t.member);
    const channel = await makeChannel(srv, t, { subscribers: [t.member2] });
    const log = new EventLog(srv);
    await send(t.member2, { type: "stream", to: channel.name, topic: "files", content: `[stolen](${url})` });
    assert.deepEqual(log.stop().filter((n) => n.event.type === "attachment"), []);
    assert.equal((await download(url, t.admin)).status, 403);
    const [row] = await attachmentRows();
    assert.equal(row.is_realm_public, 0);
  });
});

describe("temporary URLs", () => {
  test("GET /user_uploads/{realm_id}/{path} gives a URL that works without credentials for a minute", async () => {
    const url = await uploaded(t.member, "temp file.txt", "temporary");
    const pathPart = url.slice("/user_uploads/".length);
    const r = await api(t.member).get(`/user_uploads/${pathPart}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.url, /^\/user_uploads\/temporary\/[0-9A-F]+\/temp-file\.txt$/);
    const res = await download(r.body.url);
    assert.equal(await res.text(), "temporary");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-disposition"), 'inline; filename="temp file.txt"');

    const token = r.body.url.split("/")[3];
    const tampered = r.body.url.replace(token, token.slice(0, -2) + (token.endsWith("00") ? "01" : "00"));
    const bad = await download(tampered);
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), { result: "error", msg: "Invalid token", code: "BAD_REQUEST" });
    const renamed = await download(r.body.url.replace(/[^/]+$/, "other.txt"));
    assert.deepEqual(await renamed.json(), { result: "error", msg: "Invalid filename", code: "BAD_REQUEST" });

    clock.advance(61);
    const expired = await download(r.body.url);
    assert.deepEqual(await expired.json(), { result: "error", msg: "Invalid token", code: "BAD_REQUEST" });
  });

  test("only someone who may read the file gets one", async () => {
    const url = await uploaded(t.member);
    const pathPart = url.slice("/user_uploads/".length);
    const refused = await api(t.member2).get(`/user_uploads/${pathPart}`);
    assert.equal(refused.status, 403);
    const missing = await api(t.member).get(`/user_uploads/${t.realm.id}/00/nothing/here.txt`);
    assert.equal(missing.status, 404);
  });
});

describe("attachments", () => {
  test("messages that link a file claim it; the sender is told; GET /attachments lists them", async () => {
    const channel = await makeChannel(srv, t, { subscribers: [t.member] });
    const url = await uploaded(t.member);
    const [row] = await attachmentRows();
    const log = new EventLog(srv);
    clock.advance(5);
    const first = await send(t.member, { type: "stream", to: channel.name, topic: "files", content: `[a](${url}) and again [b](${url})` });
    clock.advance(5);
    const second = await send(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: `${srv.app.config.externalUrl}${url}` });
    const updates = log.stop().filter((n) => n.event.type === "attachment");
    const base = { id: row.id, name: "notes.txt", path_id: row.path_id, size: 5, create_time: NOW * 1000 };
    const m1 = { id: first, date_sent: (NOW + 5) * 1000 };
    const m2 = { id: second, date_sent: (NOW + 10) * 1000 };
    assert.deepEqual(updates, [
      { realmId: t.realm.id, event: { type: "attachment", op: "update", attachment: { ...base, messages: [m1] }, upload_space_used: 5 }, userIds: [t.member.id] },
      { realmId: t.realm.id, event: { type: "attachment", op: "update", attachment: { ...base, messages: [m1, m2] }, upload_space_used: 5 }, userIds: [t.member.id] },
    ]);
    const list = await api(t.member).get("/attachments");
    assert.deepEqual(list.body, { result: "success", msg: "", attachments: [{ ...base, messages: [m1, m2] }], upload_space_used: 5 });
    assert.deepEqual((await api(t.member2).get("/attachments")).body.attachments, []);
    await uploaded(o.member, "other.txt", "other org");
    assert.equal((await api(t.member).get("/attachments")).body.upload_space_used, 5);
  });

  test("editing a message away from a file detaches it; editing one in claims it", async () => {
    const url = await uploaded(t.member);
    const [row] = await attachmentRows();
    const id = await send(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: `[a](${url})` });
    const edited = await api(t.member).patch(`/messages/${id}`, { content: "nothing attached" });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual(edited.body.detached_uploads, [
      { id: row.id, name: "notes.txt", path_id: row.path_id, size: 5, create_time: NOW * 1000, messages: [] },
    ]);
    assert.equal((await download(url, t.member2)).status, 403);
    const back = await api(t.member).patch(`/messages/${id}`, { content: `[again](${url})` });
    assert.deepEqual(back.body.detached_uploads, []);
    assert.equal((await download(url, t.member2)).status, 200);
  });

  test("DELETE /attachments/{id}: the owner's alone; the file is gone and the owner told", async () => {
    const before = storedFiles().length;
    const url = await uploaded(t.member);
    const [row] = await attachmentRows();
    assert.equal(storedFiles().length, before + 1);
    for (const u of [t.owner, t.admin, t.member2, o.owner]) {
      const r = await api(u).delete(`/attachments/${row.id}`);
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg: "Invalid attachment", code: "BAD_REQUEST" });
    }
    assert.equal((await api(t.member).delete("/attachments/99999999999")).body.msg, "Invalid attachment");
    const log = new EventLog(srv);
    const r = await api(t.member).delete(`/attachments/${row.id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "attachment", op: "remove", attachment: { id: row.id }, upload_space_used: 0 }, userIds: [t.member.id] },
    ]);
    assert.equal((await download(url, t.member)).status, 404);
    assert.equal(storedFiles().length, before);
  });

  test("deleting a linking message keeps the file but drops the link", async () => {
    const url = await uploaded(t.member);
    const id = await send(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: `[a](${url})` });
    const r = await api(t.member).delete(`/messages/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((await api(t.member).get("/attachments")).body.attachments[0].messages, []);
  });

  test("attachment events reach the owner's event queue", async () => {
    const queue = (await api(t.member).post("/register", { event_types: ["attachment"] })).body.queue_id;
    const other = (await api(t.member2).post("/register", { event_types: ["attachment"] })).body.queue_id;
    await uploaded(t.member);
    const events = (await api(t.member).get("/events", { queue_id: queue, last_event_id: -1, dont_block: true })).body.events;
    assert.equal(events.length, 1);
    assert.equal(events[0].type, "attachment");
    assert.equal(events[0].op, "add");
    const none = (await api(t.member2).get("/events", { queue_id: other, last_event_id: -1, dont_block: true })).body.events;
    assert.deepEqual(none, []);
  });
});
