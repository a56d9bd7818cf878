/** The search box's suggestions: operators, channels, topics and people, each with what it finds. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { splitLastWord, suggest, type SuggestContext } from "../../../web/src/state/search_suggest.js";

const ctx: SuggestContext = {
  channels: [
    { id: 1, name: "Verona" },
    { id: 2, name: "Denmark" },
    { id: 7, name: "core team" },
  ],
  topics: (id) => ({ 1: ["castle walls", "castle", "lunch"], 2: ["castle of Elsinore"] })[id] ?? [],
  people: [
    { id: 5, name: "Iago", email: "iago@zulip.com" },
    { id: 10, name: "King Hamlet", email: "hamlet@zulip.com" },
    { id: 11, name: "Othello, the Moor of Venice", email: "othello@zulip.com" },
  ],
};

const texts = (text: string) => suggest(text, ctx).map((s) => s.text);
const find = (text: string, wanted: string) => suggest(text, ctx).find((s) => s.text === wanted);

test("the word being typed is the text after the last space outside quotes", () => {
  assert.deepEqual(splitLastWord("channel:Verona top"), { before: "channel:Verona ", word: "top" });
  assert.deepEqual(splitLastWord('is:dm topic:"castle wa'), { before: "is:dm ", word: 'topic:"castle wa' });
  assert.deepEqual(splitLastWord("is:starred "), { before: "is:starred ", word: "" });
});

test("an empty box offers the common filters; after a finished term, the channel's topics and the filters not used yet", () => {
  const first = suggest("", ctx);
  assert.ok(first.some((s) => s.text === "is:dm" && s.description === "Direct messages"));
  assert.ok(first.some((s) => s.text === "is:starred" && s.complete));
  const after = texts("is:starred ");
  assert.ok(after.includes("is:starred is:unread"));
  assert.ok(!after.includes("is:starred is:starred"), "a filter already there is not offered again");
  const inVerona = suggest("channel:Verona ", ctx);
  assert.deepEqual(inVerona.slice(0, 3).map((s) => s.description), ["Channel Verona > topic castle walls", "Channel Verona > topic castle", "Channel Verona > topic lunch"]);
  assert.equal(inVerona[0].text, 'channel:Verona topic:"castle walls"');
  assert.ok(!texts("channel:Verona topic:lunch ").some((t) => t.includes("castle")), "no second topic");
  assert.equal(suggest("channel:Verona ", ctx).length, 10);
});

test("a plain word: searching for it first, then the operators, people and channels it begins", () => {
  const s = suggest("ia", ctx);
  assert.deepEqual(s[0], { text: "ia", description: "Search for ia", complete: true });
  assert.deepEqual(find("ia", "sender:iago@zulip.com"), { text: "sender:iago@zulip.com", description: "Messages from Iago", complete: true });
  assert.equal(find("ia", "dm:iago@zulip.com")?.description, "Direct messages with Iago");
  assert.deepEqual(find("sen", "sender:"), { text: "sender:", description: "Messages sent by someone", complete: false });
  assert.equal(find("ver", "channel:Verona")?.description, "Channel Verona");
  assert.equal(find("tea", 'channel:"core team"')?.description, "Channel core team", "a name with a space is quoted");
  assert.ok(texts("fro").includes("sender:"), "from: is offered as sender:");
  assert.ok(texts("moor").includes("sender:othello@zulip.com"), "a person by any word of their name");
});

test("operands: is:, has:, channels, people by name or email, sender:me", () => {
  assert.deepEqual(texts("is:"), ["is:dm", "is:starred", "is:mentioned", "is:unread", "is:followed", "is:resolved", "is:alerted"]);
  assert.equal(find("is:st", "is:starred")?.description, "Starred messages");
  assert.deepEqual(texts("has:"), ["has:link", "has:image", "has:attachment", "has:reaction"]);
  assert.deepEqual(texts("channel:d"), ["channel:Denmark"]);
  assert.deepEqual(texts("stream:ver"), ["channel:Verona"], "the old name of the operator completes to the new");
  assert.deepEqual(texts("sender:ham"), ["sender:hamlet@zulip.com"]);
  assert.deepEqual(texts("sender:king"), ["sender:hamlet@zulip.com"]);
  assert.equal(find("sender:m", "sender:me")?.description, "Messages sent by you");
  assert.equal(find("dm:ia", "dm:iago@zulip.com")?.description, "Direct messages with Iago");
  assert.equal(find("dm-including:ia", "dm-including:iago@zulip.com")?.description, "Direct messages including Iago");
  assert.deepEqual(suggest("near:12", ctx), [{ text: "near:12", description: "Messages around message 12", complete: true }]);
  assert.deepEqual(texts("id:x"), [], "an ID is digits");
});

test("topics come from the channel typed before, newest first, and say where they are", () => {
  assert.deepEqual(texts("channel:Verona topic:cas"), ['channel:Verona topic:"castle walls"', "channel:Verona topic:castle"]);
  assert.equal(find("channel:Verona topic:cas", "channel:Verona topic:castle")?.description, "Channel Verona > topic castle");
  assert.deepEqual(texts('channel:Verona topic:"castle w'), ['channel:Verona topic:"castle walls"'], "an opened quote still completes");
  assert.deepEqual(texts("topic:elsi"), ['topic:"castle of Elsinore"'], "without a channel, every channel's topics");
  assert.equal(find("topic:elsi", 'topic:"castle of Elsinore"')?.description, "Topic castle of Elsinore");
});

test("a leading minus excludes", () => {
  assert.deepEqual(suggest("-is:st", ctx), [{ text: "-is:starred", description: "Exclude starred messages", complete: true }]);
  assert.equal(find("-channel:ver", "-channel:Verona")?.description, "Exclude channel Verona");
});

test("at most ten suggestions", () => {
  const many: SuggestContext = { ...ctx, people: Array.from({ length: 30 }, (_, i) => ({ id: i, name: `Person ${i}`, email: `p${i}@x.org` })) };
  assert.equal(suggest("sender:p", many).length, 10);
});
