import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { savedSnippetsRegisterState } from "../../src/actions/saved_snippets.js";

const NOW = 1681662420.9;

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);

function assertError(r: ApiResponse, status: number, msg: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST" });
}

async function create(u: TestUser, title = "Greeting", content = "Welcome to the organization."): Promise<number> {
  const r = await api(u).post("/saved_snippets", { title, content });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.saved_snippet_id;
}

const allSnippets = () => srv.app.db.selectFrom("saved_snippets").selectAll().orderBy("id").execute();

before(async () => {
  srv = await startTestServer({}, { clock: new ManualClock(NOW) });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("saved_snippets").execute();
});

describe("POST /saved_snippets", () => {
  test("creates a snippet for any kind of user and tells only the owner's clients", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const log = new EventLog(srv);
      const r = await api(u).post("/saved_snippets", { title: "  Greeting ", content: "\n Welcome to the organization. \n" });
      const id = r.body.saved_snippet_id;
      assert.deepEqual(r.body, { result: "success", msg: "", saved_snippet_id: id });
      const snippet = { id, title: "Greeting", content: "Welcome to the organization.", date_created: Math.floor(NOW) };
      assert.deepEqual(log.stop(), [
        { realmId: t.realm.id, event: { type: "saved_snippets", op: "add", saved_snippet: snippet }, userIds: [u.id] },
      ]);
      assert.deepEqual((await api(u).get("/saved_snippets")).body.saved_snippets, [snippet]);
    }
  });

  test("title and content must be given, not blank, and within their limits", async () => {
    const log = new EventLog(srv);
    const cases: [Record<string, string>, string][] = [
      [{ title: "   ", content: "x" }, "title cannot be blank"],
      [{ title: "", content: "x" }, "title cannot be blank"],
      [{ title: "x", content: " \n\t " }, "content cannot be blank"],
      [{ title: "t".repeat(61), content: "x" }, "title is too long (limit: 60 characters)"],
      [{ title: "x", content: "c".repeat(10001) }, "content is too long (limit: 10000 characters)"],
    ];
    for (const [params, msg] of cases) assertError(await api(t.member).post("/saved_snippets", params), 400, msg);
    const missing = await api(t.member).post("/saved_snippets", { content: "x" });
    assert.deepEqual(missing.body, {
      result: "error",
      msg: "Missing 'title' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "title",
    });
    assert.equal((await api(t.member).post("/saved_snippets", { title: "x" })).body.var_name, "content");
    assert.deepEqual(await allSnippets(), []);
    assert.deepEqual(log.stop(), []);
  });

  test("limits count characters after stripping", async () => {
    const id = await create(t.member, ` ${"😀".repeat(60)} `, ` ${"é".repeat(10000)} `);
    const [s] = await allSnippets();
    assert.equal(s.id, id);
    assert.equal(s.title, "😀".repeat(60));
    assert.equal(s.content, "é".repeat(10000));
  });
});

describe("GET /saved_snippets", () => {
  test("only the caller's snippets, oldest first", async () => {
    const a = await create(t.member, "A", "first");
    await create(t.member2, "Other", "not yours");
    await create(o.member, "Elsewhere", "other organization");
    const b = await create(t.member, "B", "second");
    const r = await api(t.member).get("/saved_snippets");
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      saved_snippets: [
        { id: a, title: "A", content: "first", date_created: Math.floor(NOW) },
        { id: b, title: "B", content: "second", date_created: Math.floor(NOW) },
      ],
    });
    assert.deepEqual(await savedSnippetsRegisterState(srv.app.db, t.member.id), { saved_snippets: r.body.saved_snippets });
  });
});

describe("PATCH /saved_snippets/{id}", () => {
  test("changes the title, the content or both, and tells the owner's clients", async () => {
    const id = await create(t.member);
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.member).patch(`/saved_snippets/${id}`, { title: " Hello " })).body, { result: "success", msg: "" });
    await api(t.member).patch(`/saved_snippets/${id}`, { content: " Hi there. " });
    await api(t.member).patch(`/saved_snippets/${id}`, { title: "Both", content: "Changed." });
    const base = { id, date_created: Math.floor(NOW) };
    const update = (title: string, content: string) => ({
      realmId: t.realm.id,
      event: { type: "saved_snippets", op: "update", saved_snippet: { ...base, title, content } },
      userIds: [t.member.id],
    });
    assert.deepEqual(log.stop(), [
      update("Hello", "Welcome to the organization."),
      update("Hello", "Hi there."),
      update("Both", "Changed."),
    ]);
  });

  test("changing nothing succeeds without looking, and sends nothing", async () => {
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.member).patch("/saved_snippets/987654")).body, { result: "success", msg: "" });
    assert.deepEqual(log.stop(), []);
  });

  test("the new values obey the same rules", async () => {
    const id = await create(t.member);
    assertError(await api(t.member).patch(`/saved_snippets/${id}`, { title: " " }), 400, "title cannot be blank");
    assertError(await api(t.member).patch(`/saved_snippets/${id}`, { content: "" }), 400, "content cannot be blank");
    assertError(await api(t.member).patch(`/saved_snippets/${id}`, { title: "t".repeat(61) }), 400, "title is too long (limit: 60 characters)");
    assert.equal((await allSnippets())[0].title, "Greeting");
  });

  test("another user's snippet, or one of another organization, does not exist", async () => {
    const id = await create(t.member);
    const log = new EventLog(srv);
    for (const u of [t.member2, t.owner, t.admin, o.owner]) {
      assertError(await api(u).patch(`/saved_snippets/${id}`, { title: "Mine now" }), 404, "Saved snippet does not exist.");
    }
    assertError(await api(t.member).patch("/saved_snippets/99999999999", { title: "x" }), 404, "Saved snippet does not exist.");
    assert.equal((await allSnippets())[0].title, "Greeting");
    assert.deepEqual(log.stop(), []);
  });
});

describe("DELETE /saved_snippets/{id}", () => {
  test("deletes the snippet and tells the owner's clients", async () => {
    const id = await create(t.member);
    const log = new EventLog(srv);
    assert.deepEqual((await api(t.member).delete(`/saved_snippets/${id}`)).body, { result: "success", msg: "" });
    assert.deepEqual(await allSnippets(), []);
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "saved_snippets", op: "remove", saved_snippet_id: id }, userIds: [t.member.id] },
    ]);
    assertError(await api(t.member).delete(`/saved_snippets/${id}`), 404, "Saved snippet does not exist.");
  });

  test("another user's snippet does not exist", async () => {
    const id = await create(t.member);
    const log = new EventLog(srv);
    for (const u of [t.member2, t.owner, o.owner]) {
      assertError(await api(u).delete(`/saved_snippets/${id}`), 404, "Saved snippet does not exist.");
    }
    assertError(await api(t.member).delete("/saved_snippets/99999999999"), 404, "Saved snippet does not exist.");
    assert.equal((await allSnippets()).length, 1);
    assert.deepEqual(log.stop(), []);
  });
});
