import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { seedDevOrganization } from "../../src/dev/seed.js";
import { listLinkifiers } from "../../src/store/linkifiers.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
const TRAC = { pattern: "#(?P<id>[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" };
const PYTHON = { name: "Python playground", pygments_language: "Python", url_template: "https://python.example.com?code={code}" };

const add = (u: TestUser, params: Record<string, ParamValue | undefined>) => api(u).post("/realm/filters", params);
const update = (u: TestUser, id: number, params: Record<string, ParamValue | undefined>) => api(u).patch(`/realm/filters/${id}`, params);
const remove = (u: TestUser, id: number) => api(u).delete(`/realm/filters/${id}`);
const reorder = (u: TestUser, ids: unknown) => api(u).patch("/realm/linkifiers", { ordered_linkifier_ids: ids as ParamValue });
const listed = async (u: TestUser) => (await api(u).get("/realm/linkifiers")).body.linkifiers;
const addPlayground = (u: TestUser, params: Record<string, ParamValue | undefined>) => api(u).post("/realm/playgrounds", params);
const removePlayground = (u: TestUser, id: number) => api(u).delete(`/realm/playgrounds/${id}`);

async function succeeded(request: Promise<ApiResponse>): Promise<number> {
  const r = await request;
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}
const added = (u: TestUser, params: Record<string, string>) => succeeded(add(u, params));
const addedPlayground = (u: TestUser, params: Record<string, string>) => succeeded(addPlayground(u, params));

async function playgrounds(u: TestUser): Promise<unknown[]> {
  const r = await api(u).post("/register", { fetch_event_types: ["realm_playgrounds"] });
  return r.body.realm_playgrounds;
}

function assertError(r: ApiResponse, msg: string, extra: Record<string, unknown> = {}, code = "BAD_REQUEST") {
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code, ...extra });
}

const assertAdminRequired = (r: ApiResponse) => assertError(r, "Must be an organization administrator", {}, "UNAUTHORIZED_PRINCIPAL");

/** Zulip's ValidationFailureError: the first message, and all of them by field. */
function assertInvalid(r: ApiResponse, errors: Record<string, string[]>) {
  assertError(r, Object.values(errors)[0][0], { errors });
}

const everyone = (realm: TestRealm) =>
  [realm.owner, realm.admin, realm.moderator, realm.member, realm.member2, realm.guest, realm.bot].map((u) => u.id);

/** The whole new list, to every active user of the organization. */
const listEvent = (type: string) => (realm: TestRealm, list: unknown[]) => ({
  realmId: realm.realm.id,
  event: { type, [type]: list },
  userIds: everyone(realm),
});
const linkifiersEvent = listEvent("realm_linkifiers");
const playgroundsEvent = listEvent("realm_playgrounds");

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("realm_linkifiers").execute();
  await srv.app.db.deleteFrom("realm_playgrounds").execute();
});

describe("GET /realm/linkifiers", () => {
  test("every user of the organization sees its linkifiers, in order, and only its own", async () => {
    assert.deepEqual((await api(t.member).get("/realm/linkifiers")).body, { result: "success", msg: "", linkifiers: [] });
    const first = await added(t.admin, TRAC);
    const second = await added(t.admin, { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" });
    await added(o.admin, { pattern: "OTHER-(?P<id>\\d+)", url_template: "https://other.example.com/{id}" });
    const expected = [
      { id: first, ...TRAC },
      { id: second, pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" },
    ];
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) assert.deepEqual(await listed(u), expected);
    assert.deepEqual((await listed(o.member)).map((l: { pattern: string }) => l.pattern), ["OTHER-(?P<id>\\d+)"]);
  });
});

describe("POST /realm/filters", () => {
  test("owners and administrators add linkifiers; every active user of the organization hears of the new list", async () => {
    const log = new EventLog(srv);
    const id = await added(t.owner, TRAC);
    const second = { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" };
    const r = await add(t.admin, second);
    assert.deepEqual(r.body, { result: "success", msg: "", id: r.body.id });
    const list = [{ id, ...TRAC }, { id: r.body.id, ...second }];
    assert.deepEqual(log.stop(), [linkifiersEvent(t, list.slice(0, 1)), linkifiersEvent(t, list)]);
    assert.deepEqual(await listed(t.member), list);
  });

  test("moderators, members, guests and bots may not, even with no parameters; nothing changes", async () => {
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      assertAdminRequired(await add(u, TRAC));
      assertAdminRequired(await add(u, {}));
    }
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await listed(t.admin), []);
  });

  test("an administrator of another organization adds to their own", async () => {
    const log = new EventLog(srv);
    const id = await added(o.admin, TRAC);
    assert.deepEqual(log.stop(), [linkifiersEvent(o, [{ id, ...TRAC }])]);
    assert.deepEqual(await listed(t.admin), []);
    // The same pattern is free in each organization.
    await added(t.admin, TRAC);
  });

  test("both parameters are required", async () => {
    assertError(await add(t.admin, { url_template: TRAC.url_template }), "Missing 'pattern' argument", { var_name: "pattern" }, "REQUEST_VARIABLE_MISSING");
    assertError(await add(t.admin, { pattern: TRAC.pattern }), "Missing 'url_template' argument", { var_name: "url_template" }, "REQUEST_VARIABLE_MISSING");
  });

  test("surrounding whitespace is stripped", async () => {
    const id = await added(t.admin, { pattern: "  #(?P<id>[0-9]+)\n", url_template: "\thttps://trac.example.com/ticket/{id} " });
    assert.deepEqual(await listed(t.admin), [{ id, ...TRAC }]);
  });

  test("Zulip's validation errors, each with the errors by field; nothing is stored and no one is told", async () => {
    const log = new EventLog(srv);
    const blank = "This field cannot be blank.";
    assertInvalid(await add(t.admin, { pattern: "", url_template: "https://realm.com/my_realm_filter/{id}" }), {
      pattern: [blank],
      __all__: ["Group 'id' in URL template is not present in linkifier pattern."],
    });
    assertInvalid(await add(t.admin, { pattern: "   ", url_template: " " }), { pattern: [blank], url_template: [blank] });
    assertInvalid(await add(t.admin, { pattern: "(foo", url_template: "https://x.com/{id}" }), {
      __all__: ["Bad regular expression: missing ): (foo"],
    });
    assertInvalid(await add(t.admin, { pattern: "ZUL-(?P<id>\\d????)", url_template: "https://x.com/{id}" }), {
      __all__: ["Bad regular expression: bad repetition operator: ????"],
    });
    assertInvalid(await add(t.admin, { pattern: "(?<=ZUL-)(?P<id>\\d+)", url_template: "https://x.com/{id}" }), {
      __all__: ["Bad regular expression: invalid perl operator: (?<="],
    });
    assertInvalid(await add(t.admin, { pattern: "#(?P<id>[0-9]+)", url_template: "https://x.com/{id" }), {
      url_template: ["Invalid URL template."],
    });
    assertInvalid(await add(t.admin, { pattern: "ZUL-(?P<id>\\d+)", url_template: "$fgfg" }), {
      __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
    });
    assertInvalid(await add(t.admin, { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://realm.com/my_realm_filter/{hello}" }), {
      __all__: ["Group 'hello' in URL template is not present in linkifier pattern."],
    });
    assertInvalid(await add(t.admin, { pattern: "ZUL-(?P<id>\\d+)-(?P<hello>\\d+)", url_template: "https://realm.com/{hello}" }), {
      __all__: ["Group 'id' in linkifier pattern is not present in URL template."],
    });
    assertInvalid(await add(t.admin, { pattern: "(?P<x>.{999}.{999}.{99})", url_template: "https://x.com/{x}" }), {
      __all__: ["Bad regular expression: pattern too large - compile failed"],
    });
    // PostgreSQL cannot store NUL; it is refused as Django refuses it elsewhere.
    assertInvalid(await add(t.admin, { pattern: "a\u0000b", url_template: "https://x.com/\u0000" }), {
      pattern: ["Null characters are not allowed."],
      url_template: ["Null characters are not allowed."],
    });
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await listed(t.admin), []);
  });

  test("javascript: and data: templates are refused, for linkifiers and playgrounds alike; nothing is stored", async () => {
    const log = new EventLog(srv);
    const invalid = { url_template: ["Invalid URL template."] };
    assertInvalid(await add(t.admin, { pattern: "JS(?P<x>[0-9])", url_template: "javascript:alert({x})" }), invalid);
    assertInvalid(await add(t.admin, { pattern: "JS(?P<x>[0-9])", url_template: "data:text/html,{x}" }), invalid);
    assertInvalid(await add(t.admin, { pattern: "(?P<x>[a-z:]+)", url_template: "{+x}" }), invalid);
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, url_template: "javascript:eval({code})" }), invalid);
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await listed(t.admin), []);
    assert.deepEqual(await playgrounds(t.admin), []);
  });

  test("a pattern the organization already has is refused", async () => {
    await added(t.admin, TRAC);
    const log = new EventLog(srv);
    assertInvalid(await add(t.owner, { pattern: ` ${TRAC.pattern}`, url_template: "https://elsewhere.example.com/{id}" }), {
      __all__: ["Realm filter with this Realm and Pattern already exists."],
    });
    assert.deepEqual(log.stop(), []);
    assert.equal((await listed(t.admin)).length, 1);
  });

  test("Zulip's valid examples are accepted", async () => {
    const examples: [string, string][] = [
      ["ZUL2-(?P<id>\\d+)", "https://realm.com/my_realm_filter/?value={id}"],
      ["_code=(?P<id>[0-9a-zA-Z]+)", "https://example.com/product/{id}/details"],
      ["lp:(?P<id>[0-9]+)", "https://realm.com/my_realm_filter/?sort=reverse&value={id}"],
      ["!(?P<id>[0-9]+)", "https://realm.com/index.pl?Action=AgentTicketZoom;TicketNumber={id}"],
      ["ZULZ-(?P<hello>\\d+)-(?P<world>\\d+)", "https://realm.com/my_realm_filter/{hello}/{world}"],
      ["ZUL-URL-(?P<id>\\d+)", "https://example.com/%ba/{id}"],
      ["3#123", "https://example.com"],
    ];
    for (const [pattern, url_template] of examples) await added(t.admin, { pattern, url_template });
    assert.equal((await listed(t.admin)).length, examples.length);
  });
});

describe("PATCH /realm/filters/{filter_id}", () => {
  test("administrators replace pattern and template; the linkifier keeps its place", async () => {
    const a = await added(t.admin, TRAC);
    const b = await added(t.admin, { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" });
    const log = new EventLog(srv);
    const r = await update(t.owner, a, { pattern: " #(?P<id>[0-9]{2,})", url_template: "https://trac.example.com/issues/{id}" });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const list = [
      { id: a, pattern: "#(?P<id>[0-9]{2,})", url_template: "https://trac.example.com/issues/{id}" },
      { id: b, pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" },
    ];
    assert.deepEqual(log.stop(), [linkifiersEvent(t, list)]);
    assert.deepEqual(await listed(t.member), list);
    // Keeping its own pattern is no conflict.
    assert.equal((await update(t.admin, a, list[0])).status, 200);
  });

  test("non-administrators may not; nothing changes", async () => {
    const id = await added(t.admin, TRAC);
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      assertAdminRequired(await update(u, id, { pattern: "x", url_template: "https://x.com" }));
      assertAdminRequired(await update(u, id, {}));
    }
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await listed(t.admin), [{ id, ...TRAC }]);
  });

  test("an unknown linkifier, or another organization's, is not found (before anything is validated)", async () => {
    const mine = await added(t.admin, TRAC);
    const theirs = await added(o.admin, TRAC);
    const log = new EventLog(srv);
    assertError(await update(t.admin, theirs, { pattern: "x", url_template: "https://x.com" }), "Linkifier not found.");
    assertError(await update(t.admin, mine + 1000, { pattern: "(foo", url_template: "{id" }), "Linkifier not found.");
    assertError(await update(t.admin, 99999999999, TRAC), "Linkifier not found.");
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await listed(o.admin), [{ id: theirs, ...TRAC }]);
  });

  test("both parameters are required, and validated as when adding", async () => {
    const a = await added(t.admin, TRAC);
    const b = await added(t.admin, { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://zulip.example.com/{id}" });
    const log = new EventLog(srv);
    assertError(await update(t.admin, a, { pattern: "x" }), "Missing 'url_template' argument", { var_name: "url_template" }, "REQUEST_VARIABLE_MISSING");
    assertInvalid(await update(t.admin, a, { pattern: "ZUL-(?P<id>\\d????)", url_template: "https://realm.com/my_realm_filter/{id}" }), {
      __all__: ["Bad regular expression: bad repetition operator: ????"],
    });
    assertInvalid(await update(t.admin, a, { pattern: "#(?P<id>[123])", url_template: "{id" }), { url_template: ["Invalid URL template."] });
    assertInvalid(await update(t.admin, a, { pattern: "ZUL-(?P<id>\\d+)", url_template: "https://elsewhere.example.com/{id}" }), {
      __all__: ["Realm filter with this Realm and Pattern already exists."],
    });
    assert.deepEqual(log.stop(), []);
    assert.deepEqual((await listed(t.admin)).map((l: { id: number }) => l.id), [a, b]);
    assert.deepEqual((await listed(t.admin))[0], { id: a, ...TRAC });
  });
});

describe("DELETE /realm/filters/{filter_id}", () => {
  test("administrators remove linkifiers; the others keep their order", async () => {
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await added(t.admin, { pattern: `${n}#(?P<id>[123])`, url_template: `https://filter.com/${n}/{id}` }));
    const log = new EventLog(srv);
    assert.deepEqual((await remove(t.owner, ids[1])).body, { result: "success", msg: "" });
    const rest = await listed(t.admin);
    assert.deepEqual(rest.map((l: { id: number }) => l.id), [ids[0], ids[2]]);
    assert.deepEqual(log.stop(), [linkifiersEvent(t, rest)]);
  });

  test("non-administrators may not; unknown and foreign linkifiers are not found; nothing changes", async () => {
    const mine = await added(t.admin, TRAC);
    const theirs = await added(o.admin, TRAC);
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) assertAdminRequired(await remove(u, mine));
    assertError(await remove(t.admin, theirs), "Linkifier not found.");
    assertError(await remove(t.admin, mine + 1000), "Linkifier not found.");
    assert.deepEqual(log.stop(), []);
    assert.equal((await listed(t.admin)).length, 1);
    assert.equal((await listed(o.admin)).length, 1);
  });
});

describe("PATCH /realm/linkifiers", () => {
  test("administrators set the order; new linkifiers come last; deleting keeps the order", async () => {
    const log = new EventLog(srv);
    assert.deepEqual((await reorder(t.admin, [])).body, { result: "success", msg: "" });
    assert.deepEqual(log.stop(), [], "nothing to reorder, nothing announced");

    const ids: number[] = [];
    for (const n of [1, 2, 3]) ids.push(await added(t.admin, { pattern: `${n}#(?P<id>[123])`, url_template: `https://filter.com/${n}/{id}` }));
    const order = [ids[2], ids[1], ids[0]];
    const log2 = new EventLog(srv);
    assert.deepEqual((await reorder(t.owner, order)).body, { result: "success", msg: "" });
    const list = await listed(t.member);
    assert.deepEqual(list.map((l: { id: number }) => l.id), order);
    assert.deepEqual(log2.stop(), [linkifiersEvent(t, list)]);

    const newest = await added(t.admin, { pattern: "3#123", url_template: "https://example.com" });
    assert.deepEqual((await listed(t.admin)).map((l: { id: number }) => l.id), [...order, newest]);
    await remove(t.admin, order[1]);
    assert.deepEqual((await listed(t.admin)).map((l: { id: number }) => l.id), [order[0], order[2], newest]);
  });

  test("the list must name every linkifier of the organization exactly once", async () => {
    const ids: number[] = [];
    for (const n of [1, 2]) ids.push(await added(t.admin, { pattern: `${n}#(?P<id>[123])`, url_template: `https://filter.com/${n}/{id}` }));
    const theirs = await added(o.admin, TRAC);
    const log = new EventLog(srv);
    const incomplete = "The ordered list must enumerate all existing linkifiers exactly once";
    assertError(await reorder(t.admin, [ids[1], ids[0], ids[1]]), "The ordered list must not contain duplicated linkifiers");
    assertError(await reorder(t.admin, [ids[1]]), incomplete);
    assertError(await reorder(t.admin, [ids[1], ids[0], ids[0] + 1000]), incomplete);
    assertError(await reorder(t.admin, [ids[1], ids[0], theirs]), incomplete);
    assertError(await reorder(t.admin, []), incomplete);
    assertError(await reorder(t.admin, "[1,"), "ordered_linkifier_ids is not valid JSON");
    assertError(await reorder(t.admin, ["1"]), "ordered_linkifier_ids[0] is not an integer");
    assertError(await api(t.admin).patch("/realm/linkifiers", {}), "Missing 'ordered_linkifier_ids' argument", { var_name: "ordered_linkifier_ids" }, "REQUEST_VARIABLE_MISSING");
    for (const u of [t.moderator, t.member, t.guest, t.bot]) assertAdminRequired(await reorder(u, [ids[1], ids[0]]));
    assert.deepEqual(log.stop(), []);
    assert.deepEqual((await listed(t.admin)).map((l: { id: number }) => l.id), ids);
  });
});

describe("register and events", () => {
  test("realm_linkifiers only for clients that read URL templates; realm_filters is always empty", async () => {
    const id = await added(t.admin, TRAC);
    const register = (params: Record<string, ParamValue>) => api(t.member).post("/register", params);
    const modern = await register({ fetch_event_types: ["realm_linkifiers", "realm_filters"], client_capabilities: { linkifier_url_template: true } });
    assert.deepEqual(modern.body.realm_linkifiers, [{ id, ...TRAC }]);
    assert.deepEqual(modern.body.realm_filters, []);
    const legacy = await register({ fetch_event_types: ["realm_linkifiers", "realm_filters"] });
    assert.deepEqual(legacy.body.realm_linkifiers, []);
    assert.deepEqual(legacy.body.realm_filters, []);
  });

  test("a queue that reads URL templates receives each new list", async () => {
    const register = async (capabilities: Record<string, boolean>) =>
      (await api(t.member).post("/register", { event_types: ["realm_linkifiers"], client_capabilities: capabilities })).body.queue_id as string;
    const modern = await register({ linkifier_url_template: true });
    const legacy = await register({});
    const id = await added(t.admin, TRAC);
    const events = async (queueId: string) =>
      (await api(t.member).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events;
    assert.deepEqual(await events(modern), [{ type: "realm_linkifiers", realm_linkifiers: [{ id, ...TRAC }], id: 0 }]);
    assert.deepEqual(await events(legacy), []);
  });
});

describe("rendering", () => {
  const render = async (u: TestUser, content: string) => (await api(u).post("/messages/render", { content })).body.rendered;

  async function sendAndFetch(u: TestUser, content: string): Promise<string> {
    const sent = await api(u).post("/messages", { type: "direct", to: [u.id], content });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const fetched = await api(u).get("/messages", { anchor: sent.body.id, num_before: 0, num_after: 0 });
    return fetched.body.messages[0].content;
  }

  test("messages and previews apply the organization's linkifiers, in its order", async () => {
    const issue = { pattern: "(?P<id>ZBUG_[0-9]+)", url_template: "https://other.example.com/{id}" };
    const a = await added(t.admin, { pattern: "ZBUG_(?P<id>[0-9]+)", url_template: "https://bugs.example.com/{id}" });
    const b = await added(t.admin, issue);
    await added(o.admin, { pattern: "(?P<id>[0-9]+)", url_template: "https://no.example.com/{id}" });
    assert.equal(await render(t.member, "see ZBUG_12"), '<p>see <a href="https://bugs.example.com/12">ZBUG_12</a></p>');
    assert.equal(await sendAndFetch(t.member, "see ZBUG_12"), '<p>see <a href="https://bugs.example.com/12">ZBUG_12</a></p>');
    await reorder(t.admin, [b, a]);
    assert.equal(await render(t.guest, "ZBUG_12"), '<p><a href="https://other.example.com/ZBUG_12">ZBUG_12</a></p>');
    assert.equal(await render(o.member, "ZBUG_12"), "<p>ZBUG_12</p>");
  });

  test("messages already sent keep how they were rendered", async () => {
    const id = await added(t.admin, TRAC);
    const sent = await sendAndFetch(t.member, "fixed in #224");
    assert.equal(sent, '<p>fixed in <a href="https://trac.example.com/ticket/224">#224</a></p>');
    await remove(t.admin, id);
    const fetched = await api(t.member).get("/messages", { anchor: "newest", num_before: 1, num_after: 0 });
    assert.equal(fetched.body.messages[0].content, sent);
    assert.equal(await render(t.member, "fixed in #224"), "<p>fixed in #224</p>");
  });

  test("channel messages carry the links of their topic, by the organization's current linkifiers", async () => {
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] });
    await added(t.admin, TRAC);
    const log = new EventLog(srv);
    const sent = await api(t.member).post("/messages", { type: "stream", to: "general", topic: "#444 https://google.com", content: "x" });
    const expected = [
      { url: "https://trac.example.com/ticket/444", text: "#444" },
      { url: "https://google.com", text: "https://google.com" },
    ];
    const event = log.stop().find((n) => n.event.type === "message")!.event as { message: { topic_links: unknown } };
    assert.deepEqual(event.message.topic_links, expected);
    const fetch = async () => (await api(t.member).get("/messages", { anchor: sent.body.id, num_before: 0, num_after: 0 })).body.messages[0];
    assert.deepEqual((await fetch()).topic_links, expected);
    await remove(t.admin, (await listed(t.admin))[0].id);
    assert.deepEqual((await fetch()).topic_links, [{ url: "https://google.com", text: "https://google.com" }]);
  });

  test("a linkifier with a pathological pattern cannot stall the server", async () => {
    // Catastrophic backtracking for a backtracking engine, and (for the second) a pattern that
    // matches its own output; both must finish, for a message of the longest allowed length.
    await added(t.admin, { pattern: "(?P<x>(a+)+)b", url_template: "https://x.example.com/{x}" });
    await added(t.admin, { pattern: "(?P<x>\\S+)", url_template: "https://y.example.com/{x}" });
    const content = "a".repeat(9998) + " !";
    const rendered = await render(t.member, content);
    assert.equal(rendered, `<p><a href="https://y.example.com/${"a".repeat(9998)}">${"a".repeat(9998)}</a> <a href="https://y.example.com/%21">!</a></p>`);
    assert.equal(await sendAndFetch(t.member, content), rendered);
  });
});

describe("POST /realm/playgrounds", () => {
  test("owners and administrators add playgrounds; every active user hears of the new list", async () => {
    const log = new EventLog(srv);
    const r = await addPlayground(t.owner, PYTHON);
    assert.deepEqual(r.body, { result: "success", msg: "", id: r.body.id });
    const js = { name: "JS", pygments_language: "javascript", url_template: "https://js.example.com{?code}" };
    const second = await addedPlayground(t.admin, js);
    const list = [{ id: r.body.id, ...PYTHON }, { id: second, ...js }];
    assert.deepEqual(log.stop(), [playgroundsEvent(t, list.slice(0, 1)), playgroundsEvent(t, list)]);
    for (const u of [t.member, t.guest, t.bot]) assert.deepEqual(await playgrounds(u), list);
    assert.deepEqual(await playgrounds(o.member), []);
  });

  test("moderators, members, guests and bots may not, even with no parameters; nothing changes", async () => {
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      assertAdminRequired(await addPlayground(u, PYTHON));
      assertAdminRequired(await addPlayground(u, {}));
    }
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await playgrounds(t.admin), []);
  });

  test("an administrator of another organization adds to their own", async () => {
    const log = new EventLog(srv);
    const id = await addedPlayground(o.admin, PYTHON);
    assert.deepEqual(log.stop(), [playgroundsEvent(o, [{ id, ...PYTHON }])]);
    assert.deepEqual(await playgrounds(t.admin), []);
    await addedPlayground(t.admin, PYTHON);
  });

  test("every parameter is required, checked in order", async () => {
    const missing = (name: string) => [`Missing '${name}' argument`, { var_name: name }, "REQUEST_VARIABLE_MISSING"] as const;
    assertError(await addPlayground(t.admin, {}), ...missing("name"));
    assertError(await addPlayground(t.admin, { name: "x" }), ...missing("url_template"));
    assertError(await addPlayground(t.admin, { name: "x", url_template: PYTHON.url_template }), ...missing("pygments_language"));
  });

  test("the language: at most 40 characters before stripping, of a limited set", async () => {
    const log = new EventLog(srv);
    const tooLong = "pygments_language is too long (limit: 40 characters)";
    assertError(await addPlayground(t.admin, { ...PYTHON, pygments_language: "a".repeat(41) }), tooLong);
    assertError(await addPlayground(t.admin, { ...PYTHON, pygments_language: ` ${"a".repeat(40)}` }), tooLong);
    for (const bad of ["py$thon", "Python<script>", "日本語", "a\n\nb"]) {
      assertError(await addPlayground(t.admin, { ...PYTHON, pygments_language: bad }), "Invalid characters in pygments language");
    }
    assert.deepEqual(log.stop(), []);
    const id = await addedPlayground(t.admin, { ...PYTHON, pygments_language: "a".repeat(40) });
    const cpp = await addedPlayground(t.admin, { ...PYTHON, pygments_language: " c++ " });
    const sharp = await addedPlayground(t.admin, { ...PYTHON, pygments_language: "c#\n" });
    assert.deepEqual(
      (await playgrounds(t.admin)).map((p) => (p as { id: number; pygments_language: string }).pygments_language),
      ["a".repeat(40), "c++", "c#"],
    );
    assert.ok(id < cpp && cpp < sharp);
  });

  test("values are stripped; blank ones and bad templates give Zulip's validation errors", async () => {
    const log = new EventLog(srv);
    const blank = "This field cannot be blank.";
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, name: "  " }), { name: [blank] });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, pygments_language: " " }), { pygments_language: [blank] });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, url_template: "" }), {
      url_template: [blank],
      __all__: ['Missing the required variable "code" in the URL template'],
    });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, url_template: "https://template.com?test={test" }), { url_template: ["Invalid URL template."] });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, url_template: "https://python.example.com?code={foo}" }), {
      __all__: ['Missing the required variable "code" in the URL template'],
    });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, url_template: "https://template.com{?test,code}" }), {
      __all__: ['"code" should be the only variable present in the URL template'],
    });
    assertInvalid(await addPlayground(t.admin, { ...PYTHON, name: "a\u0000b" }), { name: ["Null characters are not allowed."] });
    assert.deepEqual(log.stop(), []);
    assert.deepEqual(await playgrounds(t.admin), []);
    const id = await addedPlayground(t.admin, { name: " Python playground\t", pygments_language: "Python", url_template: " https://python.example.com?code={code}\n" });
    assert.deepEqual(await playgrounds(t.admin), [{ id, ...PYTHON }]);
  });

  test("one playground per name and language in an organization", async () => {
    await addedPlayground(t.admin, PYTHON);
    const log = new EventLog(srv);
    assertInvalid(await addPlayground(t.owner, { ...PYTHON, url_template: "https://other.example.com/{code}" }), {
      __all__: ["Realm playground with this Realm, Pygments language and Name already exists."],
    });
    assert.deepEqual(log.stop(), []);
    await addedPlayground(t.admin, { ...PYTHON, name: "Another" });
    await addedPlayground(t.admin, { ...PYTHON, pygments_language: "python3" });
    assert.equal((await playgrounds(t.admin)).length, 3);
  });
});

describe("DELETE /realm/playgrounds/{playground_id}", () => {
  test("administrators remove playgrounds; everyone hears of the remaining list", async () => {
    const a = await addedPlayground(t.admin, PYTHON);
    const b = await addedPlayground(t.admin, { ...PYTHON, name: "Another" });
    const log = new EventLog(srv);
    assert.deepEqual((await removePlayground(t.owner, a)).body, { result: "success", msg: "" });
    const rest = [{ id: b, ...PYTHON, name: "Another" }];
    assert.deepEqual(log.stop(), [playgroundsEvent(t, rest)]);
    assert.deepEqual(await playgrounds(t.member), rest);
    await removePlayground(t.admin, b);
    assert.deepEqual(await playgrounds(t.member), []);
  });

  test("non-administrators may not; unknown and foreign playgrounds are invalid; nothing changes", async () => {
    const mine = await addedPlayground(t.admin, PYTHON);
    const theirs = await addedPlayground(o.admin, PYTHON);
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      assertAdminRequired(await removePlayground(u, mine));
    }
    assertError(await removePlayground(t.admin, theirs), "Invalid playground");
    assertError(await removePlayground(t.admin, mine + 1000), "Invalid playground");
    assertError(await removePlayground(t.admin, 99999999999), "Invalid playground");
    assert.deepEqual(log.stop(), []);
    assert.equal((await playgrounds(t.admin)).length, 1);
    assert.equal((await playgrounds(o.admin)).length, 1);
  });
});

describe("code playground events", () => {
  test("an event queue receives each new list of playgrounds", async () => {
    const queue = (await api(t.guest).post("/register", { event_types: ["realm_playgrounds"] })).body.queue_id;
    const id = await addedPlayground(t.admin, PYTHON);
    await removePlayground(t.admin, id);
    const r = await api(t.guest).get("/events", { queue_id: queue, last_event_id: -1, dont_block: true });
    assert.deepEqual(r.body.events, [
      { type: "realm_playgrounds", realm_playgrounds: [{ id, ...PYTHON }], id: 0 },
      { type: "realm_playgrounds", realm_playgrounds: [], id: 1 },
    ]);
  });
});

describe("development organization", () => {
  test("has Zulip's three linkifiers for GitHub pull requests", async () => {
    const dev = await startTestServer();
    try {
      const org = await seedDevOrganization(dev.app);
      assert.deepEqual((await listLinkifiers(dev.app.db, org.realm.id)).map(({ pattern, url_template }) => ({ pattern, url_template })), [
        { pattern: "#D(?P<id>[0-9]{2,8})", url_template: "https://github.com/zulip/zulip-desktop/pull/{id}" },
        { pattern: "zulip-mobile#(?P<id>[0-9]{2,8})", url_template: "https://github.com/zulip/zulip-mobile/pull/{id}" },
        { pattern: "zulip-(?P<repo>[a-zA-Z-_0-9]+)#(?P<id>[0-9]{2,8})", url_template: "https://github.com/zulip/{repo}/pull/{id}" },
      ]);
      const iago = org.people.iago;
      const r = await new Api(dev.url, { email: iago.delivery_email, apiKey: iago.api_key }).post("/messages/render", {
        content: "zulip-terminal#1234 and #D123",
      });
      assert.equal(
        r.body.rendered,
        '<p><a href="https://github.com/zulip/terminal/pull/1234">zulip-terminal#1234</a> and <a href="https://github.com/zulip/zulip-desktop/pull/123">#D123</a></p>',
      );
    } finally {
      await dev.close();
    }
  });
});
