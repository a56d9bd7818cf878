import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { EventLog } from "../helpers/events.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());

const send = async (u: TestUser, c: MadeChannel, content: string) =>
  (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic: "widgets", content }))).id as number;
const post = (u: TestUser, messageId: number | string, content: unknown, msgType = "widget") =>
  api(u).post("/submessage", { message_id: messageId, msg_type: msgType, content: typeof content === "string" ? content : JSON.stringify(content) });
const stored = (messageId: number) =>
  srv.app.db.selectFrom("submessages").select(["id", "message_id", "sender_id", "msg_type", "content"]).where("message_id", "=", messageId).orderBy("id").execute();
const allStored = () => srv.app.db.selectFrom("submessages").selectAll().orderBy("id").execute();
const submessagesOf = async (u: TestUser, id: number) => (await ok(api(u).get(`/messages/${id}`))).message.submessages as Record<string, unknown>[];

/** A refused submessage: Zulip's envelope, nothing stored, nothing published. */
async function refusedSubmessage(call: () => Promise<ApiResponse>, msg: string, code = "BAD_REQUEST") {
  const before = await allStored();
  await refused(srv, call, msg, code);
  assert.deepEqual(await allStored(), before);
}

async function register(u: TestUser): Promise<string> {
  return (await ok(api(u).post("/register", { event_types: JSON.stringify(["message", "submessage"]) }))).queue_id;
}
async function eventsOf(u: TestUser, queueId: string): Promise<Record<string, any>[]> {
  return (await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }))).events.filter(
    (e: Record<string, unknown>) => e.type !== "heartbeat",
  );
}

describe("widgets made by sending /poll and /todo", () => {
  test("a /poll message starts with its poll: question, then options without list bullets", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const queue = await register(t.owner);
    const id = await send(t.member, c, "/poll Where to eat?\nPizza\n- Salad\n  * Soup\n\n-   \nPizza");
    const [widget] = await stored(id);
    assert.equal(widget.sender_id, t.member.id);
    assert.equal(widget.msg_type, "widget");
    assert.deepEqual(JSON.parse(widget.content), {
      widget_type: "poll",
      // Duplicates are kept, as in Zulip: clients drop them.
      extra_data: { question: "Where to eat?", options: ["Pizza", "Salad", "Soup", "Pizza"] },
    });
    assert.deepEqual(await submessagesOf(t.owner, id), [widget]);
    const [event] = await eventsOf(t.owner, queue);
    assert.equal(event.type, "message");
    assert.deepEqual(event.message.submessages, [widget]);
  });

  test("/poll alone on its line has no question; the lines under it are options", async () => {
    const c = await makeChannel(srv, t);
    const id = await send(t.owner, c, "/poll\nYes\nNo");
    assert.deepEqual(JSON.parse((await stored(id))[0].content).extra_data, { question: "", options: ["Yes", "No"] });
  });

  test("a /todo message starts with its list: title, then tasks with a description after the first ': '", async () => {
    const c = await makeChannel(srv, t);
    const id = await send(t.owner, c, "/todo Release\n- Tag: v1.0: final\n* Announce\nWrite notes:   by Friday ");
    assert.deepEqual(JSON.parse((await stored(id))[0].content), {
      widget_type: "todo",
      extra_data: {
        task_list_title: "Release",
        tasks: [
          { task: "Tag", desc: "v1.0: final" },
          { task: "Announce", desc: "" },
          { task: "Write notes", desc: "by Friday" },
        ],
      },
    });
  });

  test("only the first word makes a widget", async () => {
    const c = await makeChannel(srv, t);
    for (const content of ["/polls are open", "Vote: /poll x", "/todox", "/me votes", "hello"]) {
      const id = await send(t.owner, c, content);
      assert.deepEqual(await stored(id), [], content);
      assert.deepEqual(await submessagesOf(t.owner, id), [], content);
    }
  });

  test("a direct message can carry a poll too", async () => {
    const r = await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "/poll Tea?\nYes" }));
    assert.equal((await submessagesOf(t.member2, r.id)).length, 1);
  });
});

describe("POST /submessage on a poll", () => {
  test("readers add options and vote; the author edits the question; each is stored, shown and announced in order", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const id = await send(t.member, c, "/poll Lunch?\nPizza");
    const queue = await register(t.member2);
    const steps: [TestUser, Record<string, unknown>][] = [
      [t.member2, { type: "new_option", idx: 1, option: "Salad" }],
      [t.member2, { type: "vote", key: `${t.member2.id},1`, vote: 1 }],
      [t.owner, { type: "vote", key: "canned,0", vote: 1 }],
      [t.owner, { type: "vote", key: "canned,0", vote: -1 }],
      [t.member, { type: "question", question: "Dinner?" }],
    ];
    for (const [u, data] of steps) await ok(post(u, id, data));
    const rows = await stored(id);
    assert.equal(rows.length, 1 + steps.length);
    assert.deepEqual(
      rows.slice(1).map((r) => [r.sender_id, JSON.parse(r.content)]),
      steps.map(([u, data]) => [u.id, data]),
    );
    assert.deepEqual(await submessagesOf(t.owner, id), rows);
    const events = (await eventsOf(t.member2, queue)).filter((e) => e.type === "submessage");
    assert.deepEqual(
      events.map(({ id: _, ...e }) => e),
      rows.slice(1).map((r) => ({ type: "submessage", msg_type: "widget", message_id: id, submessage_id: r.id, sender_id: r.sender_id, content: r.content })),
    );
  });

  test("only the poll's author may change its question", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.admin] });
    const id = await send(t.member, c, "/poll Q");
    for (const u of [t.owner, t.admin]) {
      await refusedSubmessage(() => post(u, id, { type: "question", question: "Mine now" }), "You can't edit a question unless you are the author.");
    }
  });

  test("bad poll data gets Zulip's errors and stores nothing", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.owner, c, "/poll Q\nA");
    const cases: [unknown, string][] = [
      ["{not json", "Invalid json for submessage"],
      ["", "Invalid json for submessage"],
      [[1], "poll data is not a dict"],
      [null, "poll data is not a dict"],
      ["\"vote\"", "poll data is not a dict"],
      [{ key: "canned,0" }, "type key is missing from poll data"],
      [{ type: 1 }, 'poll data["type"] is not a string'],
      [{ type: "close" }, "Unknown type for poll data: close"],
      [{ type: "vote", vote: 1 }, "key key is missing from poll data"],
      [{ type: "vote", key: 0, vote: 1 }, 'poll data["key"] is not a string'],
      [{ type: "vote", key: "canned,0", vote: 2 }, 'Invalid poll data["vote"]'],
      [{ type: "vote", key: "canned,0", vote: "1" }, 'poll data["vote"] is not an integer'],
      [{ type: "vote", key: "canned,0", vote: true }, 'poll data["vote"] is not an integer'],
      [{ type: "vote", key: "canned,0", vote: 1, extra: 1, more: 2 }, "Unexpected arguments: extra, more"],
      [{ type: "new_option", option: "B", idx: 1001 }, 'poll data["idx"] is too large'],
      [{ type: "new_option", option: "B", idx: -1 }, 'poll data["idx"] is too small'],
      [{ type: "new_option", option: "B", idx: 1.5 }, 'poll data["idx"] is not an integer'],
      [{ type: "new_option", option: ["B"], idx: 1 }, 'poll data["option"] is not a string'],
      [{ type: "new_option", idx: 1 }, "option key is missing from poll data"],
    ];
    for (const [content, msg] of cases) await refusedSubmessage(() => post(t.member, id, content), msg);
    await refusedSubmessage(() => post(t.owner, id, { type: "question" }), "question key is missing from poll data");
  });
});

describe("POST /submessage on a to-do list", () => {
  test("readers add and strike tasks; the author renames the list", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.guest] });
    const id = await send(t.owner, c, "/todo Trip\nTickets");
    const steps: [TestUser, Record<string, unknown>][] = [
      [t.guest, { type: "new_task", key: 2, task: "Hotel", desc: "near the station", completed: false }],
      [t.member, { type: "strike", key: "0,canned" }],
      [t.member, { type: "strike", key: `2,${t.guest.id}` }],
      [t.owner, { type: "new_task_list_title", title: "Holiday" }],
    ];
    for (const [u, data] of steps) await ok(post(u, id, data));
    assert.deepEqual(
      (await stored(id)).slice(1).map((r) => [r.sender_id, JSON.parse(r.content)]),
      steps.map(([u, data]) => [u.id, data]),
    );
  });

  test("bad to-do data, and a title changed by anyone but the author, are refused", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.owner, c, "/todo List");
    const cases: [unknown, string][] = [
      [{ type: "new_task_list_title", title: "Mine" }, "You can't edit the task list title unless you are the author."],
      [{ type: "new_task", key: 1, task: "T", desc: "" }, "completed key is missing from todo data"],
      [{ type: "new_task", key: 1, task: "T", desc: "", completed: "no" }, 'todo data["completed"] is not a boolean'],
      [{ type: "new_task", key: 5000, task: "T", desc: "", completed: false }, 'todo data["key"] is too large'],
      [{ type: "new_task", key: "1", task: "T", desc: "", completed: false }, 'todo data["key"] is not an integer'],
      [{ type: "strike", key: 0 }, 'todo data["key"] is not a string'],
      [{ type: "vote", key: "canned,0", vote: 1 }, "Unknown type for todo data: vote"],
      [{}, "type key is missing from todo data"],
    ];
    for (const [content, msg] of cases) await refusedSubmessage(() => post(t.member, id, content), msg);
  });
});

describe("who may post a submessage, and to which message", () => {
  test("every role that can read the message may vote", async () => {
    const readers = [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot];
    const c = await makeChannel(srv, t, { subscribers: readers });
    const id = await send(t.member, c, "/poll Q\nA");
    for (const u of readers) await ok(post(u, id, { type: "vote", key: "canned,0", vote: 1 }));
    assert.deepEqual(
      (await stored(id)).slice(1).map((r) => r.sender_id),
      readers.map((u) => u.id),
    );
  });

  test("a member may act on a public channel's widget without being subscribed; the history's readers hear of it", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member2] });
    const id = await send(t.owner, c, "/poll Q\nA");
    const queue = await register(t.member2);
    await ok(post(t.member, id, { type: "vote", key: "canned,0", vote: 1 }));
    assert.equal((await eventsOf(t.member2, queue)).filter((e) => e.type === "submessage").length, 1);
  });

  test("those who cannot read the message are told it does not exist, and hear nothing of its widget", async () => {
    const privateChannel = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const publicChannel = await makeChannel(srv, t, { subscribers: [t.member] });
    const inPrivate = await send(t.member, privateChannel, "/poll Secret?\nYes");
    const inPublic = await send(t.member, publicChannel, "/poll Open?\nYes");
    const dm = (await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "/poll DM?\nYes" }))).id;
    const queues = new Map([t.admin, t.guest, o.owner].map((u) => [u, ""]));
    for (const u of queues.keys()) queues.set(u, await register(u));
    const vote = { type: "vote", key: "canned,0", vote: 1 };
    const cases: [TestUser, number][] = [
      [t.admin, inPrivate],
      [t.guest, inPrivate],
      [t.guest, inPublic],
      [t.admin, dm],
      [o.owner, inPublic],
      [o.owner, dm],
    ];
    for (const [u, id] of cases) await refusedSubmessage(() => post(u, id, vote), "Invalid message(s)");
    await refusedSubmessage(() => post(t.member, 99999999, vote), "Invalid message(s)");
    for (const id of [inPrivate, inPublic, dm]) await ok(post(t.member, id, vote));
    // None of them has the messages or subscribes to their channels.
    for (const [u, queue] of queues) {
      assert.deepEqual((await eventsOf(u, queue)).filter((e) => e.type === "submessage"), [], u.email);
    }
  });

  test("the event goes to exactly the message's readers: its copies' holders, and subscribers of a channel with public history", async () => {
    const sorted = (us: TestUser[]) => us.map((u) => u.id).sort((a, b) => a - b);
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.guest] });
    const inChannel = await send(t.member, c, "/poll Q\nA");
    await ok(api(t.owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: c.name }]), principals: JSON.stringify([t.member2.id]) }));
    const dm = (await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "/todo Us" }))).id;
    const log = new EventLog(srv);
    await ok(post(t.guest, inChannel, { type: "vote", key: "canned,0", vote: 1 }));
    await ok(post(t.member2, dm, { type: "strike", key: "0,canned" }));
    const [channelVote, dmStrike] = log.stop();
    // member2 joined after the message: no copy, but the channel's history is theirs to read.
    assert.deepEqual(channelVote.userIds, sorted([t.owner, t.member, t.guest, t.member2]));
    assert.deepEqual(dmStrike.userIds, sorted([t.member, t.member2]));
  });

  test("a message without a widget takes no submessage, even from its sender", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c, "just text");
    for (const u of [t.member, t.owner]) {
      await refusedSubmessage(() => post(u, id, { type: "vote", key: "canned,0", vote: 1 }), "You cannot attach a submessage to this message.");
    }
  });

  test("parameters are checked before anything else", async () => {
    const c = await makeChannel(srv, t);
    const id = await send(t.owner, c, "/poll Q");
    await refusedSubmessage(() => api(t.owner).post("/submessage", { msg_type: "widget", content: "{}" }), "Missing 'message_id' argument", "REQUEST_VARIABLE_MISSING");
    await refusedSubmessage(() => api(t.owner).post("/submessage", { message_id: id, content: "{}" }), "Missing 'msg_type' argument", "REQUEST_VARIABLE_MISSING");
    await refusedSubmessage(() => api(t.owner).post("/submessage", { message_id: id, msg_type: "widget" }), "Missing 'content' argument", "REQUEST_VARIABLE_MISSING");
    await refusedSubmessage(() => post(t.owner, "seven", {}), "message_id is not valid JSON");
    const long = JSON.stringify({ type: "new_option", idx: 1, option: "x".repeat(20000) });
    await refusedSubmessage(() => post(t.owner, id, long), "content is too long (limit: 20000 characters)");
    const r = await api(t.owner).get("/submessage");
    assert.equal(r.status, 405);
  });
});

describe("submessages in the messages the API returns", () => {
  test("GET /messages shows each message's submessages, and a vote reaches a page read before it", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const poll = await send(t.member, c, "/poll Q\nA\nB");
    const plain = await send(t.member, c, "text");
    const todo = await send(t.member, c, "/todo L\nT");
    const page = async () => {
      const r = await ok(api(t.member).get("/messages", { anchor: poll, num_before: 0, num_after: 10, narrow: JSON.stringify([{ operator: "channel", operand: c.id }]) }));
      return new Map<number, Record<string, unknown>[]>(r.messages.map((m: Record<string, any>) => [m.id, m.submessages]));
    };
    const first = await page();
    assert.deepEqual([...first.keys()], [poll, plain, todo]);
    assert.deepEqual(first.get(poll), await stored(poll));
    assert.deepEqual(first.get(plain), []);
    assert.deepEqual(first.get(todo), await stored(todo));
    await ok(post(t.owner, poll, { type: "vote", key: "canned,1", vote: 1 }));
    await ok(post(t.owner, todo, { type: "strike", key: "0,canned" }));
    const second = await page();
    assert.equal(second.get(poll)!.length, 2);
    assert.deepEqual(second.get(poll), await stored(poll));
    assert.deepEqual(second.get(todo), await stored(todo));
    assert.deepEqual(second.get(plain), []);
  });

  test("deleting a message takes its submessages with it", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c, "/poll Q\nA");
    await ok(post(t.member, id, { type: "vote", key: "canned,0", vote: 1 }));
    await ok(api(t.owner).delete(`/messages/${id}`));
    assert.deepEqual(await stored(id), []);
  });
});
