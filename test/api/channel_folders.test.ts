/** Channel folders over HTTP: who may change them, Zulip's errors, and the events they send. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { logEventsPerTest, type EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged, expectSuccess } from "../helpers/expect.js";

let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: Api;
let log: EventLog;
const clock = new ManualClock(1_700_000_000);

const as = (u: TestUser) => api.as(u);
const allIds = () => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id).sort((a, b) => a - b);

before(async () => {
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = new Api(srv.url);
});
after(() => srv.close());
logEventsPerTest(() => srv, (l) => (log = l));


let counter = 0;
async function makeFolder(params: Record<string, ParamValue> = {}): Promise<number> {
  const r = await as(t.admin).post("/channel_folders/create", { name: `Folder ${++counter}`, description: "", ...params });
  expectSuccess(r);
  log.notices.length = 0;
  return r.body.channel_folder_id;
}

async function allFolders(realmUser: TestUser = t.owner) {
  return (await as(realmUser).get("/channel_folders", { include_archived: true })).body.channel_folders as Record<string, any>[];
}
const folderById = async (id: number) => (await allFolders()).find((f) => f.id === id);

const refusedUnchanged = (attempt: () => Promise<ApiResponse>, msg: string, code?: string) =>
  expectRefusedUnchanged(allFolders, log, attempt, msg, code);

const nonAdmins = () => [t.moderator, t.member, t.guest, t.bot];

describe("POST /channel_folders/create", () => {
  test("administrators create folders; the rendered description and the new folder are announced to everyone", async () => {
    const r = await as(t.owner).post("/channel_folders/create", { name: "Frontend", description: "Channels for **frontend**" });
    expectSuccess(r);
    const id = r.body.channel_folder_id;
    const folder = {
      id,
      name: "Frontend",
      description: "Channels for **frontend**",
      rendered_description: "<p>Channels for <strong>frontend</strong></p>",
      order: id,
      date_created: 1_700_000_000,
      creator_id: t.owner.id,
      is_archived: false,
    };
    assert.deepEqual(await folderById(id), folder);
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [[{ type: "channel_folder", op: "add", channel_folder: folder }, allIds()]]);
    expectSuccess(await as(t.admin).post("/channel_folders/create", { name: "Backend", description: "" }));
  });

  test("everyone else is refused before the parameters are read", async () => {
    for (const u of nonAdmins()) {
      await refusedUnchanged(
        () => as(u).post("/channel_folders/create", { name: "Nope", description: "" }),
        "Must be an organization administrator",
        "UNAUTHORIZED_PRINCIPAL",
      );
    }
    await refusedUnchanged(() => as(t.member).post("/channel_folders/create", {}), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
  });

  test("names and descriptions in Zulip's words", async () => {
    const taken = (await folderById(await makeFolder()))!.name;
    const attempts: [Record<string, ParamValue>, string][] = [
      [{ description: "" }, "Missing 'name' argument"],
      [{ name: "x" }, "Missing 'description' argument"],
      [{ name: "  ", description: "" }, "Channel folder name can't be empty."],
      [{ name: "abc\u0000", description: "" }, "Invalid character in channel folder name, at position 4."],
      [{ name: "x".repeat(61), description: "" }, "name is too long (limit: 60 characters)"],
      [{ name: "Long", description: "d".repeat(1025) }, "description is too long (limit: 1024 characters)"],
      [{ name: taken, description: "" }, `Channel folder '${taken}' already exists`],
      [{ name: taken.toUpperCase(), description: "" }, `Channel folder '${taken.toUpperCase()}' already exists`],
    ];
    for (const [params, msg] of attempts) {
      await refusedUnchanged(() => as(t.admin).post("/channel_folders/create", params), msg, msg.startsWith("Missing") ? "REQUEST_VARIABLE_MISSING" : undefined);
    }
    expectSuccess(await as(t.admin).post("/channel_folders/create", { name: "y".repeat(60), description: "d".repeat(1024) }));
  });
});

describe("GET /channel_folders", () => {
  test("every user of the organization lists its folders in display order; archived ones on request", async () => {
    const a = await makeFolder();
    const b = await makeFolder();
    expectSuccess(await as(t.admin).patch(`/channel_folders/${a}`, { is_archived: true }));
    for (const u of [t.owner, t.member, t.guest, t.bot]) {
      const active = (await as(u).get("/channel_folders")).body.channel_folders.map((f: { id: number }) => f.id);
      assert.equal(active.includes(a), false);
      assert.equal(active.includes(b), true);
      const all = (await as(u).get("/channel_folders", { include_archived: true })).body.channel_folders.map((f: { id: number }) => f.id);
      assert.equal(all.includes(a), true);
    }
    assert.deepEqual((await as(other.member).get("/channel_folders", { include_archived: true })).body.channel_folders, []);
  });
});

describe("PATCH /channel_folders (reorder)", () => {
  test("administrators set the order of every folder; it is announced", async () => {
    await makeFolder();
    const ids = (await allFolders()).map((f) => f.id);
    const reversed = [...ids].reverse();
    expectSuccess(await as(t.admin).patch("/channel_folders", { order: reversed }));
    const after = await allFolders();
    assert.deepEqual(after.map((f) => f.id), reversed);
    assert.deepEqual(after.map((f) => f.order), reversed.map((_, i) => i));
    assert.deepEqual(log.notices.map((n) => [n.event, n.userIds]), [[{ type: "channel_folder", op: "reorder", order: reversed }, allIds()]]);
  });

  test("a list missing a folder is refused; non-administrators are refused", async () => {
    const ids = (await allFolders()).map((f) => f.id);
    await refusedUnchanged(() => as(t.admin).patch("/channel_folders", { order: ids.slice(1) }), "Invalid order mapping.");
    const before = await allFolders();
    expectSuccess(await as(other.owner).patch("/channel_folders", { order: [...ids].reverse() }));
    assert.deepEqual(await allFolders(), before, "another organization's reorder touches only its own folders");
    assert.equal(log.notices.every((n) => n.realmId === other.realm.id), true);
    for (const u of nonAdmins()) {
      await refusedUnchanged(() => as(u).patch("/channel_folders", { order: ids }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    await refusedUnchanged(() => as(t.admin).patch("/channel_folders", { order: "[1," }), "order is not valid JSON");
  });
});

describe("PATCH /channel_folders/{id}", () => {
  test("name, description and archived state, each change announced on its own", async () => {
    const id = await makeFolder({ description: "old" });
    expectSuccess(await as(t.owner).patch(`/channel_folders/${id}`, { name: "Renamed", description: "*new*", is_archived: true }));
    const folder = await folderById(id);
    assert.deepEqual([folder!.name, folder!.description, folder!.rendered_description, folder!.is_archived], ["Renamed", "*new*", "<p><em>new</em></p>", true]);
    assert.deepEqual(
      log.notices.map((n) => [n.event, n.userIds]),
      [
        [{ type: "channel_folder", op: "update", channel_folder_id: id, data: { name: "Renamed" } }, allIds()],
        [{ type: "channel_folder", op: "update", channel_folder_id: id, data: { description: "*new*", rendered_description: "<p><em>new</em></p>" } }, allIds()],
        [{ type: "channel_folder", op: "update", channel_folder_id: id, data: { is_archived: true } }, allIds()],
      ],
    );
    log.notices.length = 0;
    expectSuccess(await as(t.owner).patch(`/channel_folders/${id}`, { name: "Renamed", description: "*new*", is_archived: true }));
    expectSuccess(await as(t.owner).patch(`/channel_folders/${id}`, {}));
    assert.deepEqual(log.notices, [], "unchanged values send nothing");
    expectSuccess(await as(t.admin).patch(`/channel_folders/${id}`, { is_archived: false }));
    assert.equal((await folderById(id))!.is_archived, false);
  });

  test("who may: administrators only; other organizations' folders do not exist", async () => {
    const id = await makeFolder();
    for (const u of nonAdmins()) {
      await refusedUnchanged(() => as(u).patch(`/channel_folders/${id}`, { name: "x" }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    await refusedUnchanged(() => as(other.owner).patch(`/channel_folders/${id}`, { name: "x" }), "Invalid channel folder ID");
    await refusedUnchanged(() => as(t.owner).patch("/channel_folders/999999", { name: "x" }), "Invalid channel folder ID");
  });

  test("errors in Zulip's words; a refused request changes nothing", async () => {
    const id = await makeFolder();
    const other2 = (await folderById(await makeFolder()))!.name;
    const me = (await folderById(id))!.name;
    const attempts: [Record<string, ParamValue>, string][] = [
      [{ name: "" }, "Channel folder name can't be empty."],
      [{ name: "x".repeat(61) }, "name is too long (limit: 60 characters)"],
      [{ description: "d".repeat(1025) }, "description is too long (limit: 1024 characters)"],
      [{ name: other2.toLowerCase() }, `Channel folder '${other2.toLowerCase()}' already exists`],
      [{ name: me.toUpperCase() }, `Channel folder '${me.toUpperCase()}' already exists`],
      [{ description: "changed", name: "a\u0007b" }, "Invalid character in channel folder name, at position 2."],
      [{ is_archived: "yes" }, "is_archived is not valid JSON"],
    ];
    for (const [params, msg] of attempts) await refusedUnchanged(() => as(t.admin).patch(`/channel_folders/${id}`, params), msg);
  });

  test("a folder with channels in it, archived channels included, cannot be archived", async () => {
    const id = await makeFolder();
    const created = await as(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "in a folder" }] });
    expectSuccess(created);
    await srv.app.db.updateTable("streams").set({ folder_id: id, is_archived: 1 }).where("name", "=", "in a folder").execute();
    await refusedUnchanged(
      () => as(t.admin).patch(`/channel_folders/${id}`, { description: "archived soon", is_archived: true }),
      "You need to remove all the channels from this folder to archive it.",
    );
    await srv.app.db.updateTable("streams").set({ folder_id: null }).where("name", "=", "in a folder").execute();
    expectSuccess(await as(t.admin).patch(`/channel_folders/${id}`, { is_archived: true }));
  });
});

describe("channel folders through POST /register and GET /events", () => {
  test("the initial state holds every folder, archived ones too; changes reach the queue", async () => {
    const archived = await makeFolder();
    expectSuccess(await as(t.admin).patch(`/channel_folders/${archived}`, { is_archived: true }));
    const reg = await as(t.guest).post("/register", { fetch_event_types: ["channel_folders"], event_types: ["channel_folder"] });
    expectSuccess(reg);
    assert.deepEqual(reg.body.channel_folders, await allFolders());
    assert.equal(reg.body.channel_folders.some((f: Record<string, any>) => f.id === archived && f.is_archived), true);
    const id = await makeFolder();
    expectSuccess(await as(t.admin).patch(`/channel_folders/${id}`, { name: `Moved ${id}` }));
    const otherQueue = await as(other.member).post("/register", { event_types: ["channel_folder"] });
    const r = await as(t.guest).get("/events", { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(
      r.body.events.map((e: Record<string, unknown>) => [e.op, e.channel_folder_id ?? (e.channel_folder as { id: number }).id]),
      [["add", id], ["update", id]],
    );
    const none = await as(other.member).get("/events", { queue_id: otherQueue.body.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(none.body.events, []);
  });
});
