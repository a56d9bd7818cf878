/**
 * Weekly digests: on the organization's digest weekday, users away for the digest period who
 * want digests get the week's hot conversations of their channels and the new channels, once.
 * Time is a manual clock; the worker's pass is run directly rather than waited for.
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
import { sendDueDigests } from "../../src/notifications/digests.js";
import { zulipWeekday } from "../../src/domain/message_emails.js";

const DAY = 24 * 3600;
const START = 1800000000;

interface Ctx {
  srv: TestServer;
  r: TestRealm;
  smtp: TestSmtpServer;
  time: ManualTime;
  api: (u: TestUser) => Api;
}

async function ok(p: Promise<{ status: number; body: Record<string, any> }>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function withDigests(body: (c: Ctx) => Promise<void>) {
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

/** Runs a digest pass and returns every email sent so far. */
async function digestPass(c: Ctx): Promise<ParsedMail[]> {
  await sendDueDigests(c.srv.app);
  await c.srv.outbox.wake();
  await c.srv.outbox.settled();
  await backgroundSettled(c.srv.app);
  return Promise.all(c.smtp.received.map((raw) => simpleParser(raw)));
}

const toAddress = (m: ParsedMail) => (Array.isArray(m.to) ? m.to[0] : m.to)!.value[0].address;

/**
 * A week in #design: "logo" has three senders, "lunch" two, "release" is long with one, then
 * two one-message topics of which the older wins the last place; "ancient" is older than the
 * digest period, in #archive, which is older too. The owner stays active; everyone else is away.
 */
async function seedWeek(c: Ctx) {
  const { owner, admin, moderator, member, member2 } = c.r;
  const subscribe = (name: string) =>
    ok(c.api(owner).post("/users/me/subscriptions", {
      subscriptions: JSON.stringify([{ name }]),
      principals: JSON.stringify([owner, admin, moderator, member, member2].map((u) => u.id)),
    }));
  const say = (u: TestUser, topic: string, content: string, to = "design") => ok(c.api(u).post("/messages", { type: "stream", to, topic, content }));
  await subscribe("archive");
  await say(owner, "ancient", "long ago", "archive");
  c.time.advance(4 * DAY);
  await subscribe("design");
  await say(owner, "logo", "new logo draft");
  await say(admin, "logo", "looks good");
  await say(moderator, "logo", "ship it");
  await say(owner, "lunch", "pizza?");
  await say(admin, "lunch", "yes");
  for (let i = 0; i < 6; i++) await say(moderator, "release", `step ${i}`);
  c.time.advance(DAY);
  await say(owner, "typo", "fixed a typo");
  await say(owner, "misc", "misc note");
  c.time.advance(DAY);
  await ok(c.api(owner).post("/users/me/presence", { status: "active" }));
}

const enableDigests = async (c: Ctx, weekday = zulipWeekday(c.time.now()), enabled = true) =>
  ok(c.api(c.r.owner).patch("/realm", { digest_emails_enabled: String(enabled), digest_weekday: weekday }));

describe("weekly digests", () => {
  test("users away get the week's hot topics and new channels, once", async () => {
    await withDigests(async (c) => {
      await seedWeek(c);
      await ok(c.api(c.r.member2).patch("/settings", { enable_digest_emails: "false" }));
      await enableDigests(c);
      const mails = await digestPass(c);
      const to = mails.map(toAddress).sort();
      // The owner was active; member2 turned digests off; the guest, not subscribed, sees no
      // public channel among the new ones (guests only learn of web-public ones).
      assert.deepEqual(to, [c.r.admin.email, c.r.member.email, c.r.moderator.email].sort());
      const mail = mails.find((m) => toAddress(m) === c.r.member.email)!;
      assert.equal(mail.subject, `Zulip digest for ${c.r.realm.name}`);
      const headings = [...mail.text!.matchAll(/^#design > (.+?) \(/gm)].map((m) => m[1]);
      assert.deepEqual(headings, ["logo", "lunch", "release", "typo"]);
      assert.match(mail.text!, /New channels: design/);
      assert.match(mail.text!, /4 more messages/, "release shows two of its six messages");
      assert.match(mail.html as string, /#narrow\/channel\/\d+-design\/topic\/logo/);
      assert.match(mail.text!, /\/accounts\/unsubscribe\/digest\//);

      // Not twice: the same day again, or a day later on the next pass.
      assert.equal((await digestPass(c)).length, 3);
      c.time.advance(DAY);
      await enableDigests(c);
      assert.equal((await digestPass(c)).length, 3);
    });
  });

  test("a channel that keeps its history from new subscribers shows its topics only to those who received them", async () => {
    await withDigests(async (c) => {
      await seedWeek(c);
      const { owner, admin, member } = c.r;
      await ok(c.api(owner).post("/users/me/subscriptions", {
        subscriptions: JSON.stringify([{ name: "secret" }]),
        principals: JSON.stringify([owner.id, admin.id]),
        invite_only: "true",
        history_public_to_subscribers: "false",
      }));
      for (const [u, text] of [[owner, "plan A"], [admin, "plan B"], [owner, "plan C"]] as const) {
        await ok(c.api(u).post("/messages", { type: "stream", to: "secret", topic: "plans", content: text }));
      }
      await ok(c.api(owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "secret" }]), principals: JSON.stringify([member.id]) }));
      await enableDigests(c);
      const mails = await digestPass(c);
      const headings = (u: TestUser) => [...mails.find((m) => toAddress(m) === u.email)!.text!.matchAll(/^#(\S+) > (.+?) \(/gm)].map((m) => `${m[1]} > ${m[2]}`);
      assert.deepEqual(headings(admin), ["design > logo", "design > lunch", "design > release", "secret > plans"]);
      assert.deepEqual(headings(member), ["design > logo", "design > lunch", "design > release", "design > typo"]);
    });
  });

  test("nothing on another weekday, with digests off for the organization, or with nothing to tell", async () => {
    await withDigests(async (c) => {
      await seedWeek(c);
      await enableDigests(c, (zulipWeekday(c.time.now()) + 1) % 7);
      assert.equal((await digestPass(c)).length, 0);
      await enableDigests(c, zulipWeekday(c.time.now()), false);
      assert.equal((await digestPass(c)).length, 0);
      // A quiet fortnight later there is nothing to send.
      c.time.advance(14 * DAY);
      await enableDigests(c);
      assert.equal((await digestPass(c)).length, 0);
    });
  });

  test("the digest unsubscribe link turns digests off", async () => {
    await withDigests(async (c) => {
      await seedWeek(c);
      await enableDigests(c);
      const mail = (await digestPass(c)).find((m) => toAddress(m) === c.r.member.email)!;
      const path = new URL(/https?:\/\/\S+\/accounts\/unsubscribe\/digest\/[0-9a-f-]+/.exec(mail.text!)![0]).pathname;
      assert.equal((await fetch(`${c.srv.url}${path}`, { method: "POST" })).status, 200);
      const state = await ok(c.api(c.r.member).post("/register", { fetch_event_types: JSON.stringify(["user_settings"]) }));
      assert.equal(state.user_settings.enable_digest_emails, false);
    });
  });

  test("passes in two processes at once send each digest once", async () => {
    await withDigests(async (c) => {
      await seedWeek(c);
      await enableDigests(c);
      const contexts = [await openAppContext(c.srv.app.config, { clock: c.time }), await openAppContext(c.srv.app.config, { clock: c.time })];
      try {
        const [a, b] = await Promise.all(contexts.map(({ app }) => sendDueDigests(app)));
        // Admin, moderator, member and member2 are away and want digests.
        assert.equal(a + b, 4);
      } finally {
        for (const ctx of contexts) await ctx.close();
      }
      assert.equal((await digestPass(c)).length, 4);
    });
  });
});
