/**
 * From invitation to account, over HTTP: the emailed link, the sign-up page, the account it
 * creates, and what Welcome Bot and Notification Bot say. Also one run through a real SMTP
 * server on loopback, and one look at the page in headless Chromium.
 */
import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { clearOutbox, joinPath, parseMail, readOutbox } from "../helpers/mail.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { clearInvites, setRealmProp, streamId } from "../helpers/invites.js";
import type { Notice } from "../../src/events/bus.js";

const execFileAsync = promisify(execFile);

const clock = new ManualClock(1_700_000_000);
let srv: TestServer;
let t: TestRealm;
let lobby: number;
let secret: number;
let general: number;
let team: number;
let counter = 0;

const api = (u: TestUser) => new Api(srv.url, u);
const PASSWORD = "a good long password";

async function page(path: string, form?: Record<string, string>, base = srv.url) {
  const res = await fetch(base + path, form ? { method: "POST", body: new URLSearchParams(form) } : {});
  return { status: res.status, type: res.headers.get("content-type"), html: await res.text() };
}

/** Invites a fresh address and returns it with the path of its emailed sign-up link. */
async function inviteSomeone(by: TestUser, params: Record<string, ParamValue> = {}): Promise<{ email: string; path: string }> {
  const email = `newcomer${++counter}@example.com`;
  const r = await api(by).post("/invites", { invitee_emails: email, stream_ids: [], ...params });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const mail = (await readOutbox(srv)).find((m) => m.to === email)!;
  return { email, path: joinPath(mail) };
}

async function userByEmail(email: string) {
  return srv.app.db.selectFrom("users").selectAll().where("delivery_email", "=", email).executeTakeFirstOrThrow();
}

async function messagesAfter(id: number) {
  return srv.app.db
    .selectFrom("messages")
    .innerJoin("users", "users.id", "messages.sender_id")
    .select(["messages.id", "users.email as sender", "messages.content", "messages.dm_key", "messages.stream_id", "messages.topic"])
    .where("messages.id", ">", id)
    .orderBy("messages.id")
    .execute();
}

async function lastMessageId() {
  const row = await srv.app.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst();
  return Number(row?.id ?? 0);
}

async function botId(email: string) {
  return (await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("email", "=", email).executeTakeFirstOrThrow()).id;
}

const dmKey = (...ids: number[]) => [...ids].sort((a, b) => a - b).join(",");

before(async () => {
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  for (const [name, inviteOnly] of [["lobby", false], ["secret", true]] as const) {
    assert.equal((await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name }], invite_only: inviteOnly })).status, 200);
  }
  lobby = await streamId(srv.app, t.realm.id, "lobby");
  secret = await streamId(srv.app, t.realm.id, "secret");
  general = await streamId(srv.app, t.realm.id, "general");
  team = (await api(t.admin).post("/user_groups/create", { name: "team", description: "", members: [t.admin.id] })).body.group_id;
});
after(() => srv.close());
beforeEach(async () => {
  await clearInvites(srv.app);
  await clearOutbox(srv);
});

describe("the sign-up page", () => {
  test("shows the organization, the invited address and role, and a form", async () => {
    const { email, path } = await inviteSomeone(t.admin, { invite_as: 300 });
    const r = await page(path);
    assert.equal(r.status, 200);
    assert.equal(r.type, "text/html; charset=utf-8");
    assert.match(r.html, new RegExp(`<h1>Join ${t.realm.name}</h1>`));
    assert.match(r.html, new RegExp(`as moderator with the address <strong>${email}</strong>`));
    assert.match(r.html, /<input id="full_name" name="full_name"/);
    assert.match(r.html, /<input id="password" name="password" type="password"/);
    assert.equal((await page(path.replace(/\/$/, ""))).status, 200);
  });

  test("escapes what users wrote", async () => {
    await srv.app.db.updateTable("realms").set({ name: `<script>alert("x")</script> & Co` }).where("id", "=", t.realm.id).execute();
    try {
      const { path } = await inviteSomeone(t.admin);
      const r = await page(path, { full_name: `"><b>bold</b>`, password: "short" });
      assert.equal(r.status, 400);
      assert.doesNotMatch(r.html, /<script>|<b>bold/);
      assert.match(r.html, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt; &amp; Co/);
      assert.match(r.html, /value="&quot;&gt;&lt;b&gt;bold&lt;\/b&gt;"/);
    } finally {
      await srv.app.db.updateTable("realms").set({ name: t.realm.name }).where("id", "=", t.realm.id).execute();
    }
  });

  test("refuses bad names and passwords with Zulip's messages and creates nothing", async () => {
    const { email, path } = await inviteSomeone(t.admin);
    for (const [form, msg] of [
      [{ full_name: "", password: PASSWORD }, "Name too short!"],
      [{ full_name: "Ann*", password: PASSWORD }, "Invalid characters in name!"],
      [{ full_name: "Ann", password: "12345" }, "The password is too weak."],
      [{ full_name: "Ann" }, "The password is too weak."],
    ] as const) {
      const r = await page(path, form as Record<string, string>);
      assert.equal(r.status, 400);
      assert.match(r.html, new RegExp(`<p class="error" role="alert">${msg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</p>`));
    }
    assert.equal(await srv.app.db.selectFrom("users").select("id").where("delivery_email", "=", email).executeTakeFirst(), undefined);
    assert.equal((await page(path)).status, 200);
  });

  test("unknown, expired and revoked links say so", async () => {
    const unknown = await page("/join/abcdefghijklmnopqrstuvwx/");
    assert.equal(unknown.status, 404);
    assert.match(unknown.html, /<h1>Invitation not found<\/h1>/);
    assert.match((await page("/join/abcdefghijklmnopqrstuvwx/", { full_name: "X", password: PASSWORD })).html, /Invitation not found/);

    const expiring = await inviteSomeone(t.admin, { invite_expires_in_minutes: 10 });
    clock.advance(601);
    try {
      for (const r of [await page(expiring.path), await page(expiring.path, { full_name: "Late", password: PASSWORD })]) {
        assert.equal(r.status, 410);
        assert.match(r.html, /<h1>This invitation has expired<\/h1>/);
        assert.match(r.html, new RegExp(`Organization: ${t.realm.name}`));
      }
    } finally {
      clock.advance(-601);
    }

    const revoked = await inviteSomeone(t.member);
    const id = (await api(t.member).get("/invites")).body.invites[0].id;
    assert.equal((await api(t.member).delete(`/invites/${id}`)).status, 200);
    const r = await page(revoked.path, { full_name: "Too Late", password: PASSWORD });
    assert.equal(r.status, 410);
    assert.match(r.html, /<h1>This invitation was revoked<\/h1>/);
    assert.equal(await srv.app.db.selectFrom("users").select("id").where("delivery_email", "=", revoked.email).executeTakeFirst(), undefined);
  });
});

describe("signing up with an invitation", () => {
  test("creates the account with the role, channels and groups asked for, and the bots speak", async () => {
    const { email, path } = await inviteSomeone(t.admin, {
      invite_as: 300,
      stream_ids: [secret],
      group_ids: [team],
      include_realm_default_subscriptions: true,
      welcome_message_custom_text: "Welcome **aboard**!",
    });
    const before = await lastMessageId();
    const log = new EventLog(srv);
    const r = await page(path, { full_name: "  Nora Newcomer ", password: PASSWORD });
    assert.equal(r.status, 200, r.html);
    assert.match(r.html, /<h1>Welcome, Nora Newcomer!<\/h1>/);
    assert.match(r.html, new RegExp(`Your account <strong>${email}</strong>`));
    const notices = log.stop();

    const user = await userByEmail(email);
    assert.deepEqual([user.full_name, user.role, user.is_bot], ["Nora Newcomer", 300, 0]);

    const key = await api(t.admin).post("/fetch_api_key", { username: email, password: PASSWORD });
    assert.equal(key.status, 200, JSON.stringify(key.body));
    const me = new Api(srv.url, { email, apiKey: key.body.api_key });
    const subs = (await me.get("/users/me/subscriptions")).body.subscriptions as { name: string }[];
    assert.deepEqual(subs.map((s) => s.name).sort(), ["general", "secret"]);
    assert.ok((await me.get(`/user_groups/${team}/members`)).body.members.includes(user.id));
    const moderators = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "role:moderators").executeTakeFirstOrThrow()).id;
    assert.ok((await me.get(`/user_groups/${moderators}/members`)).body.members.includes(user.id));

    const welcomeBot = await botId("welcome-bot@zulip.com");
    const notificationBot = await botId("notification-bot@zulip.com");
    assert.deepEqual(
      (await messagesAfter(before)).map(({ id: _, ...m }) => m),
      [
        {
          sender: "notification-bot@zulip.com",
          content: `@_**Nora Newcomer|${user.id}** accepted your invitation to join Zulip!`,
          dm_key: dmKey(notificationBot, t.admin.id),
          stream_id: null,
          topic: "",
        },
        {
          sender: "notification-bot@zulip.com",
          content: `@_**Nora Newcomer|${user.id}** joined this organization.`,
          dm_key: null,
          stream_id: general,
          topic: "signups",
        },
        {
          sender: "welcome-bot@zulip.com",
          content: (await messagesAfter(before))[2].content,
          dm_key: dmKey(welcomeBot, user.id),
          stream_id: null,
          topic: "",
        },
        { sender: "welcome-bot@zulip.com", content: "Welcome **aboard**!", dm_key: dmKey(welcomeBot, user.id), stream_id: null, topic: "" },
      ],
    );
    assert.match((await messagesAfter(before))[2].content, /^Hello, and welcome to Zulip! 👋/);

    const types = (n: Notice) => `${n.event.type}${n.event.op ? `:${n.event.op}` : ""}`;
    assert.ok(notices.some((n) => types(n) === "realm_user:add" && n.userIds.includes(t.member.id)));
    assert.ok(notices.some((n) => types(n) === "subscription:add" && n.userIds.length === 1 && n.userIds[0] === user.id));
    assert.ok(notices.some((n) => types(n) === "subscription:peer_add" && (n.event.user_ids as number[]).includes(user.id)));
    // First the system groups of the new role, announced with the user, then the invitation's group.
    const systemGroups = (await srv.app.db.selectFrom("user_group_members").select("group_id").where("user_id", "=", user.id).where("group_id", "!=", team).orderBy("group_id").execute()).map((g) => g.group_id);
    assert.ok(systemGroups.includes(moderators));
    assert.deepEqual(
      notices.filter((n) => types(n) === "user_group:add_members").map((n) => n.event),
      [...systemGroups, team].map((group_id) => ({ type: "user_group", op: "add_members", group_id, user_ids: [user.id] })),
    );
    assert.deepEqual(
      notices.filter((n) => types(n) === "invites_changed").map((n) => n.userIds),
      [[t.owner.id, t.admin.id]],
    );
    assert.deepEqual(await api(t.admin).get("/invites").then((x) => x.body.invites), []);

    const again = await page(path, { full_name: "Nora Again", password: PASSWORD });
    assert.equal(again.status, 410);
    assert.match(again.html, /<h1>This invitation has already been used<\/h1>/);
    assert.match((await page(path)).html, /already been used/);
  });

  test("without notify_referrer_on_join the inviter gets no message; subscriptions are only those asked for", async () => {
    const { email, path } = await inviteSomeone(t.member, { notify_referrer_on_join: false, stream_ids: [lobby] });
    const before = await lastMessageId();
    assert.equal((await page(path, { full_name: "Quiet Arrival", password: PASSWORD })).status, 200);
    const user = await userByEmail(email);
    assert.deepEqual(
      (await messagesAfter(before)).map((m) => m.sender),
      ["notification-bot@zulip.com", "welcome-bot@zulip.com"],
    );
    assert.equal((await messagesAfter(before))[0].topic, "signups");
    const subs = await srv.app.db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", user.id).execute();
    assert.deepEqual(subs.map((s) => s.stream_id), [lobby]);
    assert.equal(user.role, 400);
  });

  test("the custom welcome text: the invitation's, else the organization's; empty means none", async () => {
    const welcomeTexts = async (params: Record<string, ParamValue>) => {
      const { path } = await inviteSomeone(t.admin, params);
      const before = await lastMessageId();
      assert.equal((await page(path, { full_name: `Person ${counter}`, password: PASSWORD })).status, 200);
      return (await messagesAfter(before)).filter((m) => m.sender === "welcome-bot@zulip.com").slice(1).map((m) => m.content);
    };
    assert.deepEqual(await welcomeTexts({}), []);
    await setRealmProp(srv.app, t.realm.id, "welcome_message_custom_text", "Read #**general** first.");
    try {
      assert.deepEqual(await welcomeTexts({}), ["Read #**general** first."]);
      assert.deepEqual(await welcomeTexts({ welcome_message_custom_text: "" }), []);
      assert.deepEqual(await welcomeTexts({ welcome_message_custom_text: "Just for you." }), ["Just for you."]);
    } finally {
      await setRealmProp(srv.app, t.realm.id, "welcome_message_custom_text", "");
    }
  });

  test("signing up with one invitation retires the address's other pending invitations", async () => {
    const { email, path } = await inviteSomeone(t.admin);
    assert.equal((await api(t.member).post("/invites", { invitee_emails: email, stream_ids: [] })).status, 200);
    assert.equal((await api(t.owner).get("/invites")).body.invites.length, 2);
    assert.equal((await page(path, { full_name: "Popular Person", password: PASSWORD })).status, 200);
    assert.deepEqual((await api(t.owner).get("/invites")).body.invites, []);
    const other = (await readOutbox(srv)).filter((m) => m.to === email)[1];
    assert.match((await page(joinPath(other))).html, /already been used|was revoked/);
  });

  test("when the address got an account meanwhile, the form says so", async () => {
    const first = await inviteSomeone(t.admin);
    assert.equal((await api(t.member).post("/invites", { invitee_emails: first.email, stream_ids: [] })).status, 200);
    const second = joinPath((await readOutbox(srv)).filter((m) => m.to === first.email)[1]);
    await srv.app.db.updateTable("email_invites").set({ status: 0 }).execute();
    assert.equal((await page(first.path, { full_name: "First Come", password: PASSWORD })).status, 200);
    await srv.app.db.updateTable("email_invites").set({ status: 0 }).where("confirmation_key", "=", second.split("/")[2]).execute();
    const r = await page(second, { full_name: "Second Come", password: PASSWORD });
    assert.equal(r.status, 400);
    assert.match(r.html, new RegExp(`Email &#39;${first.email}&#39; already in use`));
  });
});

describe("signing up through a reusable link", () => {
  test("asks for an address, emails a personal link, and that link creates the account as the link says", async () => {
    const link = (
      await api(t.admin).post("/invites/multiuse", {
        invite_as: 600,
        stream_ids: [lobby],
        group_ids: [team],
        welcome_message_custom_text: "Guests, welcome.",
      })
    ).body.invite_link as string;
    const path = new URL(link).pathname;
    const form = await page(path);
    assert.equal(form.status, 200);
    assert.match(form.html, /<input id="email" name="email" type="email"/);

    for (const [email, msg] of [
      ["not an address", "Invalid address."],
      [t.member.email, "Already has an account."],
      ["welcome-bot@zulip.com", "Reserved for system bots."],
      ["x@mailinator.com", "Please use your real email address."],
    ]) {
      const r = await page(path, { email });
      assert.equal(r.status, 400);
      assert.match(r.html, new RegExp(`role="alert">${msg}<`));
    }
    assert.deepEqual(await readOutbox(srv), []);

    const sent = await page(path, { email: " visitor@example.com " });
    assert.equal(sent.status, 200);
    assert.match(sent.html, /<h1>Check your email<\/h1>/);
    const [mail] = await readOutbox(srv);
    assert.equal(mail.to, "visitor@example.com");
    assert.equal(mail.subject, `Confirm your email address to join ${t.realm.name}`);
    const personal = joinPath(mail);
    assert.notEqual(personal, path);
    assert.match((await page(personal)).html, /as guest with the address <strong>visitor@example.com<\/strong>/);
    assert.deepEqual((await api(t.admin).get("/invites")).body.invites.map((i: { is_multiuse: boolean }) => i.is_multiuse), [true]);

    const before = await lastMessageId();
    assert.equal((await page(personal, { full_name: "Vera Visitor", password: PASSWORD })).status, 200);
    const user = await userByEmail("visitor@example.com");
    assert.equal(user.role, 600);
    const subs = await srv.app.db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", user.id).execute();
    assert.deepEqual(subs.map((s) => s.stream_id), [lobby]);
    assert.ok(await srv.app.db.selectFrom("user_group_members").select("user_id").where("group_id", "=", team).where("user_id", "=", user.id).executeTakeFirst());
    assert.deepEqual(
      (await messagesAfter(before)).map((m) => m.sender),
      ["notification-bot@zulip.com", "welcome-bot@zulip.com", "welcome-bot@zulip.com"],
    );
    assert.equal((await messagesAfter(before))[2].content, "Guests, welcome.");
    assert.equal((await page(path)).status, 200, "the link itself stays usable");
  });

  test("a revoked link says so", async () => {
    const link = (await api(t.admin).post("/invites/multiuse", {})).body.invite_link as string;
    const id = (await api(t.admin).get("/invites")).body.invites[0].id;
    assert.equal((await api(t.admin).delete(`/invites/multiuse/${id}`)).status, 200);
    const r = await page(new URL(link).pathname, { email: "late@example.com" });
    assert.equal(r.status, 410);
    assert.match(r.html, /was revoked/);
    assert.deepEqual(await readOutbox(srv), []);
  });
});

describe("invitation email over SMTP", () => {
  let smtp: TestSmtpServer;
  let mailSrv: TestServer;

  before(async () => {
    smtp = await TestSmtpServer.start();
    mailSrv = await startTestServer({ smtpUrl: smtp.url });
  });
  after(async () => {
    await mailSrv.close();
    await smtp.stop();
  });

  test("is delivered to the SMTP server, nothing goes to the outbox, and its link signs the person up", async () => {
    // This server keeps real time, fractions of a second included.
    const m = await createTestRealm(mailSrv.app, "mailed");
    const admin = new Api(mailSrv.url, m.admin);
    const r = await admin.post("/invites", { invitee_emails: "smtp-reader@example.com", stream_ids: [] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await backgroundSettled(mailSrv.app);
    assert.equal(smtp.received.length, 1);
    const [listed] = (await admin.get("/invites")).body.invites;
    assert.equal((await admin.post(`/invites/${listed.id}/resend`)).status, 200);
    await backgroundSettled(mailSrv.app);
    assert.equal(smtp.received.length, 2);
    const mail = parseMail(smtp.received[0]);
    assert.equal(mail.to, "smtp-reader@example.com");
    assert.equal(mail.subject, `${m.admin.fullName} invited you to join ${m.realm.name}`);
    assert.equal(fs.existsSync(`${mailSrv.dataDir}/outbox`), false);
    const done = await page(joinPath(mail), { full_name: "Smtp Reader", password: PASSWORD }, mailSrv.url);
    assert.equal(done.status, 200, done.html);
    const user = await mailSrv.app.db.selectFrom("users").select("role").where("delivery_email", "=", "smtp-reader@example.com").executeTakeFirstOrThrow();
    assert.equal(user.role, 400);
  });
});

/** Debian's Chromium, installed with apt-get when missing; otherwise the reason it cannot be had. */
async function findChromium(): Promise<{ path: string } | { reason: string }> {
  const binary = "/usr/bin/chromium";
  if (fs.existsSync(binary)) return { path: binary };
  try {
    await execFileAsync("sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"], {
      timeout: 15 * 60 * 1000,
    });
  } catch (err) {
    const detail = (err as { stderr?: string; message: string }).stderr || (err as Error).message;
    return { reason: `Chromium is not installed and apt-get could not install it: ${detail.trim().slice(-300)}` };
  }
  return fs.existsSync(binary) ? { path: binary } : { reason: "apt-get ran but /usr/bin/chromium is still missing" };
}

describe("the sign-up page in a browser", () => {
  test("headless Chromium renders the form with the organization's name", async (ctx) => {
    const chromium = await findChromium();
    if ("reason" in chromium) {
      console.log(`skipping the browser check: ${chromium.reason}`);
      ctx.skip(chromium.reason);
      return;
    }
    const { path: joinAt } = await inviteSomeone(t.admin, { invite_as: 200 });
    // Asynchronously: the server answering Chromium runs in this process.
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "confab-chromium-"));
    try {
      const { stdout: dom } = await execFileAsync(
        chromium.path,
        ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", `--user-data-dir=${profile}`, "--dump-dom", srv.url + joinAt],
        { encoding: "utf8", timeout: 120_000 },
      );
      assert.match(dom, new RegExp(`<title>Join ${t.realm.name}</title>`));
      assert.match(dom, /<form method="post">/);
      assert.match(dom, /as organization administrator with the address/);
      assert.match(dom, /<button type="submit">Create account<\/button>/);
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});
