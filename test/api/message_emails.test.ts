/**
 * Message notification emails: a recipient who is away when a message arrives and has a reason
 * to hear of it (a DM, a mention, a followed topic, a channel's email setting) gets one email per
 * conversation once their batching period has passed, through a real SMTP server. Time is a
 * manual clock, so the 120-second batching period passes without waiting.
 */
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { simpleParser, type ParsedMail } from "mailparser";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualTime } from "../helpers/time.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { openAppContext } from "../../src/server.js";
import { sendDueMessageEmails } from "../../src/notifications/message_emails.js";

const START = 1800000000;
const BATCH = 120;

interface Ctx {
  srv: TestServer;
  r: TestRealm;
  smtp: TestSmtpServer;
  time: ManualTime;
  api: (u: TestUser) => Api;
}

async function withMail(body: (c: Ctx) => Promise<void>) {
  const smtp = await TestSmtpServer.start();
  const time = new ManualTime(START);
  const srv = await startTestServer({ smtpUrl: smtp.url }, { clock: time, timers: time });
  try {
    const r = await createTestRealm(srv.app);
    await body({ srv, r, smtp, time, api: (u) => new Api(srv.url, u) });
  } finally {
    await srv.close();
    await smtp.stop();
  }
}

async function ok(p: Promise<{ status: number; body: Record<string, any> }>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Lets `seconds` pass, then waits for the batches due and the emails they queued. */
async function pass(c: Ctx, seconds: number): Promise<ParsedMail[]> {
  c.time.advance(seconds);
  await c.srv.messageEmails.wake();
  await c.srv.messageEmails.settled();
  await c.srv.outbox.wake();
  await c.srv.outbox.settled();
  await backgroundSettled(c.srv.app);
  return Promise.all(c.smtp.received.map((raw) => simpleParser(raw)));
}

const dm = (c: Ctx, from: TestUser, to: TestUser[], content: string) =>
  ok(c.api(from).post("/messages", { type: "direct", to: JSON.stringify(to.map((u) => u.id)), content }));
const toChannel = (c: Ctx, from: TestUser, topic: string, content: string, channel = "mailroom") =>
  ok(c.api(from).post("/messages", { type: "stream", to: channel, topic, content }));
const settings = (c: Ctx, u: TestUser, values: Record<string, unknown>) =>
  ok(c.api(u).patch("/settings", Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]))));
async function channel(c: Ctx, users: TestUser[], name = "mailroom") {
  await ok(c.api(c.r.owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(users.map((u) => u.id)) }));
  const { stream_id } = await ok(c.api(c.r.owner).get("/get_stream_id", { stream: name }));
  return stream_id as number;
}
const toAddress = (m: ParsedMail) => (Array.isArray(m.to) ? m.to[0] : m.to)!.value[0].address;

describe("message notification emails", () => {
  test("DMs to an absent user: one email per conversation after the batching period, with subject, parts and links", async () => {
    await withMail(async (c) => {
      const { owner, member, member2 } = c.r;
      await dm(c, owner, [member], "Are you **coming** to lunch?");
      await dm(c, owner, [member], "We leave at noon.");
      await dm(c, member2, [member, owner], "Group plan");
      assert.deepEqual(await pass(c, BATCH - 1), [], "nothing before the batching period has passed");

      const all = await pass(c, 1);
      assert.deepEqual(all.map(toAddress).sort(), [member.email, member.email, owner.email].sort(), "the group DM reaches the owner too");
      const [one, group] = all.filter((m) => toAddress(m) === member.email);
      assert.equal(toAddress(one), member.email);
      assert.equal(one.subject, `DMs with ${owner.fullName}`);
      assert.match(one.text!, /Are you \*\*coming\*\* to lunch\?/);
      assert.match(one.text!, /We leave at noon\./);
      assert.match(one.html as string, /<strong>coming<\/strong>/);
      assert.match(one.html as string, new RegExp(`#narrow/dm/${Math.min(owner.id, member.id)},${Math.max(owner.id, member.id)}"`));
      assert.match(one.text!, /#settings\/notifications/);
      const unsubscribe = /\/accounts\/unsubscribe\/missed_messages\/[0-9a-f-]+/.exec(one.text!)![0];
      const header = (name: string) => one.headerLines.find((h) => h.key === name)?.line ?? "";
      assert.match(header("list-unsubscribe"), new RegExp(`<https?://\\S+${unsubscribe}>`));
      assert.equal(header("list-unsubscribe-post"), "List-Unsubscribe-Post: List-Unsubscribe=One-Click");
      assert.equal(group.subject, `Group DMs with ${owner.fullName} and ${member2.fullName}`);
      assert.match(group.text!, /#narrow\/dm\/[0-9,]+-group/);

      // Sent once: later passes find nothing more.
      assert.equal((await pass(c, 3600)).length, 3);
    });
  });

  test("a user active when the message arrives gets no email", async () => {
    await withMail(async (c) => {
      const { owner, member } = c.r;
      await ok(c.api(member).post("/register", { event_types: JSON.stringify(["message"]) }));
      await ok(c.api(member).post("/users/me/presence", { status: "active" }));
      await dm(c, owner, [member], "You are here");
      assert.deepEqual(await pass(c, BATCH), []);
      // Presence alone (no open queue receiving messages) is not being on Zulip.
      await ok(c.api(c.r.member2).post("/users/me/presence", { status: "active" }));
      await dm(c, owner, [c.r.member2], "Queue-less");
      assert.equal((await pass(c, BATCH)).length, 1);
    });
  });

  test("a message read, or deleted, before the batch goes out is dropped; an edited one shows its current text", async () => {
    await withMail(async (c) => {
      const { owner, member, member2, guest } = c.r;
      const { id: read } = await dm(c, owner, [member], "read me");
      const { id: deleted } = await dm(c, owner, [member2], "delete me");
      const { id: edited } = await dm(c, owner, [guest], "first draft");
      await ok(c.api(member).post("/messages/flags", { messages: JSON.stringify([read]), op: "add", flag: "read" }));
      await ok(c.api(owner).delete(`/messages/${deleted}`));
      await ok(c.api(owner).patch(`/messages/${edited}`, { content: "final words" }));
      const mails = await pass(c, BATCH);
      assert.deepEqual(mails.map(toAddress), [guest.email]);
      assert.match(mails[0].text!, /final words/);
      assert.doesNotMatch(mails[0].text!, /first draft/);
    });
  });

  test("each setting turns its trigger off", async () => {
    await withMail(async (c) => {
      const { owner, admin, moderator, member, member2, guest } = c.r;
      const streamId = await channel(c, [owner, admin, moderator, member, member2, guest]);
      await settings(c, member, { enable_offline_email_notifications: false });
      await dm(c, owner, [member], "no DM emails");
      await toChannel(c, owner, "lunch", `@**${member.fullName}** no mention emails`);
      // Wildcard mentions follow wildcard_mentions_notify.
      await settings(c, member2, { wildcard_mentions_notify: false });
      await toChannel(c, owner, "all hands", "@**all** wildcard");
      // Channel traffic: the personal setting, overridden by the subscription's.
      await settings(c, moderator, { enable_stream_email_notifications: true });
      await settings(c, admin, { enable_stream_email_notifications: true });
      await ok(c.api(admin).post("/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([{ stream_id: streamId, property: "email_notifications", value: false }]),
      }));
      await toChannel(c, owner, "plain", "ordinary traffic");
      const mails = await pass(c, BATCH);
      const got = mails.map((m) => `${toAddress(m)} ${m.subject}`).sort();
      assert.deepEqual(got, [
        `${admin.email} #mailroom > all hands`,
        `${guest.email} #mailroom > all hands`,
        `${moderator.email} #mailroom > all hands`,
        `${moderator.email} #mailroom > plain`,
      ].sort());
      // Member (offline emails off) got nothing; member2 (wildcards off) nothing.
    });
  });

  test("followed topics, muted topics, muted channels and muted senders", async () => {
    await withMail(async (c) => {
      const { owner, admin, moderator, member, member2 } = c.r;
      const streamId = await channel(c, [owner, admin, moderator, member, member2]);
      await toChannel(c, owner, "plans", "start");
      const topicPolicy = (u: TestUser, topic: string, policy: number) =>
        ok(c.api(u).post("/user_topics", { stream_id: streamId, topic, visibility_policy: policy }));
      await topicPolicy(member, "plans", 3); // followed: emailed by default
      await topicPolicy(member2, "plans", 3);
      await settings(c, member2, { enable_followed_topic_email_notifications: false });
      await settings(c, admin, { enable_stream_email_notifications: true });
      await topicPolicy(admin, "plans", 1); // muted topic: no channel emails for it
      await settings(c, moderator, { enable_stream_email_notifications: true });
      await ok(c.api(moderator).post(`/users/me/muted_users/${owner.id}`));
      c.smtp.received.length = 0;
      await pass(c, BATCH);
      c.smtp.received.length = 0;
      await toChannel(c, owner, "plans", "more plans");
      const mails = await pass(c, BATCH);
      assert.deepEqual(mails.map((m) => `${toAddress(m)} ${m.subject}`), [`${member.email} #mailroom > plans`]);
    });
  });

  test("alert words and group mentions count as mentions; a personal mention reaches a muted channel", async () => {
    await withMail(async (c) => {
      const { owner, admin, member, member2 } = c.r;
      const streamId = await channel(c, [owner, admin, member, member2]);
      await ok(c.api(member).post("/users/me/alert_words", { alert_words: JSON.stringify(["pizza"]) }));
      await ok(c.api(member2).post("/users/me/subscriptions/properties", {
        subscription_data: JSON.stringify([{ stream_id: streamId, property: "is_muted", value: true }]),
      }));
      await ok(c.api(owner).post("/user_groups/create", { name: "crew", description: "", members: JSON.stringify([admin.id]) }));
      await toChannel(c, owner, "food", "Who wants pizza?");
      await toChannel(c, owner, "ping", `@**${member2.fullName}** and @*crew*`);
      const mails = await pass(c, BATCH);
      assert.deepEqual(mails.map((m) => `${toAddress(m)} ${m.subject}`).sort(), [
        `${admin.email} #mailroom > ping`,
        `${member.email} #mailroom > food`,
        `${member2.email} #mailroom > ping`,
      ].sort());
    });
  });

  test("pending notifications survive a restart and go out once", async () => {
    const smtp = await TestSmtpServer.start();
    const time = new ManualTime(START);
    let srv = await startTestServer({ smtpUrl: smtp.url }, { clock: time, timers: time });
    try {
      const r = await createTestRealm(srv.app);
      const c: Ctx = { srv, r, smtp, time, api: (u) => new Api(srv.url, u) };
      await dm(c, r.owner, [r.member], "before the restart");
      srv = await srv.restart({ clock: time, timers: time });
      const after: Ctx = { ...c, srv };
      const mails = await pass(after, BATCH);
      assert.deepEqual(mails.map(toAddress), [r.member.email]);
      assert.equal((await pass(after, BATCH)).length, 1);
    } finally {
      await srv.close();
      await smtp.stop();
    }
  });

  test("content and organization name settings shape the email", async () => {
    await withMail(async (c) => {
      const { owner, member, member2 } = c.r;
      await settings(c, member, { message_content_in_email_notifications: false });
      await settings(c, member2, { realm_name_in_email_notifications_policy: 2 });
      await dm(c, owner, [member], "secret plans");
      await dm(c, owner, [member2], "open plans");
      const mails = await pass(c, BATCH);
      const byTo = new Map(mails.map((m) => [toAddress(m), m]));
      assert.equal(byTo.get(member.email)!.subject, "New messages");
      assert.doesNotMatch(byTo.get(member.email)!.text!, /secret plans/);
      assert.equal(byTo.get(member2.email)!.subject, `DMs with ${owner.fullName} [${c.r.realm.name}]`);

      // The organization may keep content out of every email.
      c.smtp.received.length = 0;
      await ok(c.api(c.r.owner).patch("/realm", { message_content_allowed_in_email_notifications: "false" }));
      await dm(c, owner, [member2], "hidden by the organization");
      const [hidden] = await pass(c, BATCH);
      assert.equal(hidden.subject, `New messages [${c.r.realm.name}]`);
      assert.doesNotMatch(hidden.text!, /hidden by the organization/);
    });
  });

  test("the unsubscribe link turns the setting off in one click", async () => {
    await withMail(async (c) => {
      const { owner, member } = c.r;
      await dm(c, owner, [member], "hello");
      const [mail] = await pass(c, BATCH);
      const link = /https?:\/\/\S+\/accounts\/unsubscribe\/missed_messages\/[0-9a-f-]+/.exec(mail.text!)![0];
      const path = new URL(link).pathname;
      const page = await fetch(`${c.srv.url}${path}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /unsubscribed/i);
      const state = await ok(c.api(member).post("/register", { fetch_event_types: JSON.stringify(["user_settings"]) }));
      assert.equal(state.user_settings.enable_offline_email_notifications, false);
      await dm(c, owner, [member], "after unsubscribing");
      assert.equal((await pass(c, BATCH)).length, 1);

      // A forged or mangled token changes nothing.
      assert.equal((await fetch(`${c.srv.url}${path.replace(/.$/, (ch) => (ch === "0" ? "1" : "0"))}`)).status, 400);
      assert.equal((await fetch(`${c.srv.url}/accounts/unsubscribe/nonsense/${path.split("/").pop()}`)).status, 404);
      // One-click POST (RFC 8058) works as well.
      const digestLink = path.replace("missed_messages", "digest");
      assert.equal((await fetch(`${c.srv.url}${digestLink}`, { method: "POST" })).status, 400, "a token is for one type");
    });
  });

  test("two processes sharing the database take each batch once", async () => {
    await withMail(async (c) => {
      await c.srv.messageEmails.close();
      for (const u of [c.r.member, c.r.member2, c.r.guest, c.r.admin]) await dm(c, c.r.owner, [u], `hi ${u.fullName}`);
      c.time.advance(BATCH);
      const contexts = [await openAppContext(c.srv.app.config, { clock: c.time }), await openAppContext(c.srv.app.config, { clock: c.time })];
      try {
        await Promise.all(contexts.map(({ app }) => sendDueMessageEmails(app)));
        const jobs = await c.srv.app.db.selectFrom("outbox_jobs").select("payload").where("kind", "=", "email").execute();
        assert.equal(jobs.length, 4);
        assert.equal(new Set(jobs.map((j) => JSON.parse(j.payload).to)).size, 4);
      } finally {
        for (const ctx of contexts) await ctx.close();
      }
    });
  });
});
