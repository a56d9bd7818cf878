/** `search:` narrows through the word index: words, phrases, stop words, CJK, highlights, upkeep. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let api: (u: TestUser) => Api;
let pub: MadeChannel;
let priv: MadeChannel;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  api = (u) => new Api(srv.url, u);
  pub = await makeChannel(srv, t, { subscribers: [t.admin, t.moderator, t.member, t.member2, t.bot] });
  priv = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
});
after(() => srv.close());

async function send(content: string, topic = "general", to: MadeChannel = pub, from: TestUser = t.member): Promise<number> {
  return (await ok(api(from).post("/messages", { type: "stream", to: to.id, topic, content }))).id;
}

interface Found {
  id: number;
  match_content?: string;
  match_subject?: string;
}

async function search(operand: string, u: TestUser = t.member, channel: MadeChannel | null = pub, negated = false): Promise<Found[]> {
  const narrow: unknown[] = [{ operator: "search", operand, negated }];
  if (channel) narrow.unshift({ operator: "channel", operand: channel.id });
  return (await ok(api(u).get("/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow: JSON.stringify(narrow) }))).messages;
}
const ids = async (operand: string, u?: TestUser, channel?: MadeChannel | null) => (await search(operand, u, channel)).map((m) => m.id);

describe("matching", () => {
  let walk: number, fox: number, topic: number, cjk: number, jp: number, ko: number, bold: number;
  before(async () => {
    walk = await send("We were **walking** to the station", "travel");
    fox = await send("The quick brown fox jumps over the lazy dog");
    topic = await send("nothing in the text", "Zebra crossing");
    cjk = await send("我们明天在北京开会");
    jp = await send("東京タワーに行きました");
    ko = await send("안녕하세요 여러분");
    bold = await send("see https://example.com/path and <tags> &amp; more");
  });

  test("words: any case, any order, all required, stemmed", async () => {
    assert.deepEqual(await ids("QUICK fox"), [fox]);
    assert.deepEqual(await ids("fox quick"), [fox]);
    assert.deepEqual(await ids("fox walking"), []);
    for (const w of ["walk", "walks", "walked", "Walking"]) assert.deepEqual(await ids(w), [walk], w);
    assert.deepEqual(await ids("jumping dogs"), [fox]);
  });

  test("no prefix or substring matching of words, as Zulip's full-text search", async () => {
    assert.deepEqual(await ids("qui"), []);
    assert.deepEqual(await ids("statio"), []);
    assert.deepEqual(await ids("own"), []);
  });

  test("the topic is searched", async () => {
    assert.deepEqual(await ids("zebra"), [topic]);
    assert.deepEqual(await ids("zebra nothing"), [topic]);
  });

  test("markup is not text: tag names and entities match nothing", async () => {
    assert.deepEqual(await ids("strong"), []);
    assert.deepEqual(await ids("amp"), []);
    assert.deepEqual(await ids("tags more"), [bold]);
  });

  test("stop words are ignored; only stop words find nothing", async () => {
    assert.deepEqual(await ids("the quick"), [fox]);
    assert.deepEqual(await ids("over the fox"), [fox]);
    assert.deepEqual(await ids("the"), []);
    assert.deepEqual(await ids("!!"), []);
  });

  test("phrases in quotes must appear as written, any case", async () => {
    assert.deepEqual(await ids('"brown fox"'), [fox]);
    assert.deepEqual(await ids('"fox brown"'), []);
    assert.deepEqual(await ids('"Lazy Dog" quick'), [fox]);
    assert.deepEqual(await ids('"the lazy"'), [fox]);
  });

  test("Chinese, Japanese and Korean words are found inside longer runs", async () => {
    assert.deepEqual(await ids("北京"), [cjk]);
    assert.deepEqual(await ids("明天 开会"), [cjk]);
    assert.deepEqual(await ids("タワー"), [jp]);
    assert.deepEqual(await ids("東京 タワー"), [jp]);
    assert.deepEqual(await ids("여러분"), [ko]);
    assert.deepEqual(await ids("上海"), []);
  });

  test("negated search keeps the others", async () => {
    const left = (await search("fox", t.member, pub, true)).map((m) => m.id);
    assert.ok(!left.includes(fox));
    assert.ok(left.includes(walk) && left.includes(cjk));
  });

  test("highlights: stemmed words, phrases, CJK, topic", async () => {
    const [w] = await search("walked");
    assert.equal(w!.match_content, '<p>We were <strong><span class="highlight">walking</span></strong> to the station</p>');
    const [f] = await search('"brown fox" the');
    assert.equal(f!.match_content, '<p>The quick <span class="highlight">brown fox</span> jumps over the lazy dog</p>');
    const [c] = await search("北京");
    assert.equal(c!.match_content, '<p>我们明天在<span class="highlight">北京</span>开会</p>');
    const [z] = await search("zebras");
    assert.equal(z!.match_subject, '<span class="highlight">Zebra</span> crossing');
    const r = await ok(api(t.member).get("/messages/matches_narrow", { msg_ids: JSON.stringify([fox, walk]), narrow: JSON.stringify([{ operator: "search", operand: "dogs" }]) }));
    assert.deepEqual(Object.keys(r.messages), [String(fox)]);
    assert.match(r.messages[fox].match_content, /<span class="highlight">dog<\/span>/);
  });
});

describe("access", () => {
  test("each role finds what it may read and no more", async () => {
    const secret = await send("kumquat secret plans", "hidden", priv);
    const open = await send("kumquat for everyone");
    assert.deepEqual(await ids("kumquat", t.member, null), [secret, open]);
    // The owner made the private channel, and so is subscribed to it.
    assert.deepEqual(await ids("kumquat", t.owner, null), [secret, open]);
    for (const u of [t.admin, t.moderator, t.member2, t.bot]) {
      const found = await ids("kumquat", u, null);
      assert.ok(found.includes(open) && !found.includes(secret), u.email);
    }
    // A guest not subscribed to the public channel sees neither; another organization neither.
    assert.deepEqual(await ids("kumquat", t.guest, null), []);
    assert.deepEqual(await ids("kumquat", o.member, null), []);
  });
});

describe("index upkeep", () => {
  test("an edit of the content reindexes it", async () => {
    const id = await send("original tangerine words");
    await ok(api(t.member).patch(`/messages/${id}`, { content: "rewritten pomelo words" }));
    assert.deepEqual(await ids("tangerine"), []);
    assert.deepEqual(await ids("pomelo"), [id]);
    assert.deepEqual(await ids('"original tangerine"'), []);
  });

  test("a topic move reindexes every moved message", async () => {
    const a = await send("first durian", "before move");
    const b = await send("second durian", "before move");
    await ok(api(t.member).patch(`/messages/${a}`, { topic: "after quince", propagate_mode: "change_all" }));
    // (The notice of the move, in the new topic, matches the topic alone.)
    assert.deepEqual(await ids("quince durian"), [a, b]);
    assert.deepEqual(await ids("durian move"), []);
  });

  test("a move to another channel follows the channel", async () => {
    const other = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send("wandering lychee", "travelling");
    await ok(api(t.admin).patch(`/messages/${id}`, { stream_id: other.id, propagate_mode: "change_one" }));
    assert.deepEqual(await ids("lychee"), []);
    assert.deepEqual(await ids("lychee", t.member, other), [id]);
  });

  test("a deleted message is no longer found", async () => {
    const id = await send("doomed persimmon");
    assert.deepEqual(await ids("persimmon"), [id]);
    await ok(api(t.admin).delete(`/messages/${id}`));
    assert.deepEqual(await ids("persimmon"), []);
  });
});
