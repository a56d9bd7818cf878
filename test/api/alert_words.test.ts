import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { alertWordsRegisterState, realmAlertWordMatcher } from "../../src/actions/alert_words.js";
import { loadRealmAlertWords } from "../../src/store/alert_words.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
const add = (u: TestUser, words: unknown) => api(u).post("/users/me/alert_words", { alert_words: words as object });
const remove = (u: TestUser, words: unknown) => api(u).delete("/users/me/alert_words", { alert_words: words as object });
const wordsOf = async (u: TestUser) => (await api(u).get("/users/me/alert_words")).body.alert_words;

function assertError(r: ApiResponse, msg: string) {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST" });
}

const alertEvent = (realm: TestRealm, u: TestUser, words: string[]) => ({
  realmId: realm.realm.id,
  event: { type: "alert_words", alert_words: words },
  userIds: [u.id],
});

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("alert_words").execute();
});

describe("GET /users/me/alert_words", () => {
  test("an empty list to start with", async () => {
    assert.deepEqual((await api(t.member).get("/users/me/alert_words")).body, { result: "success", msg: "", alert_words: [] });
  });
});

describe("POST /users/me/alert_words", () => {
  test("any kind of user adds words and gets back the full list; only their clients hear of it", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const log = new EventLog(srv);
      const r = await add(u, ["one", "two words"]);
      assert.deepEqual(r.body, { result: "success", msg: "", alert_words: ["one", "two words"] });
      assert.deepEqual(log.stop(), [alertEvent(t, u, ["one", "two words"])]);
      assert.deepEqual(await wordsOf(u), ["one", "two words"]);
    }
  });

  test("words already present in any spelling are skipped; the last spelling sent wins", async () => {
    await add(t.member, ["Alpha"]);
    const r = await add(t.member, ["alpha", "ALPHA", "beta", "Gamma", "BETA", "gamma"]);
    assert.deepEqual(r.body.alert_words, ["Alpha", "BETA", "gamma"]);
  });

  test("words are stripped and empty ones dropped; an unchanged list is still announced", async () => {
    const r = await add(t.member, ["  spaced out  ", "", "   ", "\tTab\n"]);
    assert.deepEqual(r.body.alert_words, ["spaced out", "Tab"]);
    const log = new EventLog(srv);
    assert.deepEqual((await add(t.member, ["tab", " "])).body.alert_words, ["spaced out", "Tab"]);
    assert.deepEqual((await add(t.member, [])).body.alert_words, ["spaced out", "Tab"]);
    assert.deepEqual(log.stop(), [alertEvent(t, t.member, ["spaced out", "Tab"]), alertEvent(t, t.member, ["spaced out", "Tab"])]);
  });

  test("each word is at most 100 characters, counted before stripping", async () => {
    const log = new EventLog(srv);
    assertError(await add(t.member, ["fine", "x".repeat(101)]), "alert_words[1] is too long (limit: 100 characters)");
    assertError(await add(t.member, [` ${"x".repeat(100)}`]), "alert_words[0] is too long (limit: 100 characters)");
    assert.deepEqual(await wordsOf(t.member), []);
    assert.deepEqual(log.stop(), []);
    const emoji = "🔔".repeat(100);
    assert.deepEqual((await add(t.member, [emoji, "x".repeat(100)])).body.alert_words, [emoji, "x".repeat(100)]);
  });

  test("a user keeps at most 1,000 words; more are refused whole, and all can be removed at once", async () => {
    const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `word ${from + i}`);
    assert.equal((await add(t.member, words(0, 990))).body.alert_words.length, 990);
    const log = new EventLog(srv);
    assertError(await add(t.member, words(990, 11)), "Too many alert words (limit: 1000)");
    assert.deepEqual(log.stop(), []);
    assert.equal((await wordsOf(t.member)).length, 990);
    // Words already there do not count twice.
    assert.equal((await add(t.member, [...words(0, 990), ...words(990, 10)])).body.alert_words.length, 1000);
    assertError(await add(t.member, ["one more"]), "Too many alert words (limit: 1000)");
    const r = await remove(t.member, [...words(0, 1000), ...words(5000, 40_000)]);
    assert.deepEqual(r.body.alert_words, []);
  });

  test("alert_words must be a JSON list of strings", async () => {
    assertError(await add(t.member, '"word"'), "alert_words is not a list");
    assertError(await add(t.member, [1]), "alert_words[0] is not a string");
    assertError(await api(t.member).post("/users/me/alert_words", { alert_words: "[oops" }), "alert_words is not valid JSON");
    const r = await api(t.member).post("/users/me/alert_words", {});
    assert.deepEqual(r.body, {
      result: "error",
      msg: "Missing 'alert_words' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "alert_words",
    });
    assert.deepEqual(await wordsOf(t.member), []);
  });
});

describe("DELETE /users/me/alert_words", () => {
  test("removes words in any spelling, ignores unknown ones, and returns the rest", async () => {
    await add(t.member, ["Alpha", "beta", "gamma delta", "  padded "]);
    const log = new EventLog(srv);
    const r = await remove(t.member, ["ALPHA", "nothing", "Gamma Delta", " padded", "x".repeat(300)]);
    assert.deepEqual(r.body, { result: "success", msg: "", alert_words: ["beta", "padded"] });
    assert.deepEqual(log.stop(), [alertEvent(t, t.member, ["beta", "padded"])]);
  });

  test("alert_words must be a JSON list of strings", async () => {
    await add(t.member, ["keep"]);
    assertError(await remove(t.member, [true]), "alert_words[0] is not a string");
    assertError(await remove(t.member, { keep: 1 }), "alert_words is not a list");
    assert.equal((await api(t.member).delete("/users/me/alert_words", {})).body.code, "REQUEST_VARIABLE_MISSING");
    assert.deepEqual(await wordsOf(t.member), ["keep"]);
  });
});

describe("privacy", () => {
  test("users see and change only their own words, within and across organizations", async () => {
    await add(t.member, ["mine"]);
    await add(t.member2, ["MINE", "theirs"]);
    await add(o.member, ["elsewhere"]);
    assert.deepEqual(await wordsOf(t.member), ["mine"]);
    assert.deepEqual(await wordsOf(t.member2), ["MINE", "theirs"]);
    assert.deepEqual(await wordsOf(o.member), ["elsewhere"]);
    assert.deepEqual((await remove(t.admin, ["mine", "theirs"])).body.alert_words, []);
    assert.deepEqual((await remove(o.owner, ["mine"])).body.alert_words, []);
    assert.deepEqual(await wordsOf(t.member), ["mine"]);
    assert.deepEqual(await wordsOf(t.member2), ["MINE", "theirs"]);
  });
});

describe("register state and message matching", () => {
  test("register returns the user's words in the order added", async () => {
    await add(t.member, ["b", "a"]);
    await add(t.member, ["c"]);
    assert.deepEqual(await alertWordsRegisterState(srv.app.db, t.member.id), { alert_words: ["b", "a", "c"] });
  });

  test("the organization's words, by user", async () => {
    await add(t.member, ["deploy", "Outage"]);
    await add(t.guest, ["outage"]);
    await add(o.member, ["deploy"]);
    assert.deepEqual(
      await loadRealmAlertWords(srv.app.db, t.realm.id),
      new Map([
        [t.member.id, ["deploy", "Outage"]],
        [t.guest.id, ["outage"]],
      ]),
    );
  });

  test("the realm matcher finds the users whose words a message contains, and follows changes", async () => {
    const match = async (realm: TestRealm, content: string) =>
      [...(await realmAlertWordMatcher(srv.app, srv.app.db, realm.realm.id))(content)].sort((a, b) => a - b);
    await add(t.member, ["deploy"]);
    await add(t.guest, ["Outage"]);
    await add(o.member, ["deploy"]);
    assert.deepEqual(await match(t, "Deploy finished."), [t.member.id]);
    assert.deepEqual(await match(t, "deployment finished"), []);
    assert.deepEqual(await match(t, "OUTAGE during deploy!"), [t.member.id, t.guest.id].sort((a, b) => a - b));
    assert.deepEqual(await match(o, "deploy"), [o.member.id]);

    const cached = await realmAlertWordMatcher(srv.app, srv.app.db, t.realm.id);
    assert.equal(await realmAlertWordMatcher(srv.app, srv.app.db, t.realm.id), cached);

    await add(t.member2, ["finished"]);
    assert.deepEqual(await match(t, "Deploy finished."), [t.member.id, t.member2.id].sort((a, b) => a - b));
    await remove(t.member, ["DEPLOY"]);
    assert.deepEqual(await match(t, "Deploy finished."), [t.member2.id]);
    // A removal and an addition between two messages still rebuild the matcher.
    await remove(t.member2, ["finished"]);
    await add(t.member, ["release"]);
    assert.deepEqual(await match(t, "release finished"), [t.member.id]);
    assert.notEqual(await realmAlertWordMatcher(srv.app, srv.app.db, t.realm.id), cached);
  });
});

describe("alert words flag incoming messages", () => {
  test("a recipient whose alert word appears gets has_alert_word, in the event and in GET /messages", async () => {
    const sub = await api(t.member).post("/users/me/subscriptions", {
      subscriptions: [{ name: "alerts" }],
      principals: [t.member.id, t.member2.id],
    });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    assert.equal((await add(t.member2, ["Deploy"])).status, 200);

    const log = new EventLog(srv);
    const sent = await api(t.member).post("/messages", { type: "stream", to: "alerts", topic: "ops", content: "we deploy today" });
    const missed = await api(t.member).post("/messages", { type: "stream", to: "alerts", topic: "ops", content: "redeployment only" });
    log.stop();
    assert.equal(sent.status, 200, JSON.stringify(sent.body));

    const [first, second] = log.of("message");
    assert.deepEqual(first.perUser?.get(t.member2.id)?.flags, ["has_alert_word"]);
    assert.ok(!(first.perUser?.get(t.member.id)?.flags as string[]).includes("has_alert_word"));
    assert.ok(!(second.perUser?.get(t.member2.id)?.flags as string[]).includes("has_alert_word"));

    const fetched = await api(t.member2).get("/messages", { anchor: sent.body.id, num_before: 0, num_after: 1, narrow: [["channel", "alerts"]] });
    const byId = new Map(fetched.body.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]));
    assert.ok((byId.get(sent.body.id) as string[]).includes("has_alert_word"));
    assert.ok(!(byId.get(missed.body.id) as string[]).includes("has_alert_word"));
  });
});
