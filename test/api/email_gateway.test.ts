/**
 * The email gateway over real SMTP: nodemailer sends to the gateway's listener, and what it
 * posts is read back through the API and the database.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import nodemailer, { type SendMailOptions } from "nodemailer";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { ok } from "../helpers/channels.js";
import { replyAddressFor } from "../../src/email_gateway/addresses.js";
import { DEFAULT_RATE_LIMIT_RULES } from "../../src/domain/rate_limits.js";

const PATTERN = "%s@gw.confab.test";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let channelId: number;
let privateId: number;
let otherChannelId: number;

const api = (u: TestUser) => new Api(srv.url, u);

type Mail = SendMailOptions;

/** Sends one mail over SMTP; resolves with the server's answer, or the refusal it sent. */
async function send(server: TestServer, mail: Mail, tlsCa?: Buffer): Promise<{ accepted: boolean; response: string }> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: server.emailGateway!.port,
    secure: false,
    ...(tlsCa ? { requireTLS: true, tls: { ca: [tlsCa], servername: "localhost" } } : { ignoreTLS: true }),
  });
  try {
    const info = await transport.sendMail({ from: "Sam Sender <sam@outside.example>", ...mail });
    return { accepted: true, response: info.response };
  } catch (err) {
    return { accepted: false, response: String((err as { response?: string }).response ?? err) };
  } finally {
    transport.close();
  }
}

async function latestMessage() {
  return srv.app.db.selectFrom("messages").selectAll().orderBy("id", "desc").executeTakeFirstOrThrow();
}

async function messageCount(): Promise<number> {
  const row = await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function channelAddress(u: TestUser, streamId: number, senderId?: number): Promise<string> {
  return (await ok(api(u).get(`/streams/${streamId}/email_address`, senderId === undefined ? {} : { sender_id: senderId }))).email;
}

async function postToChannel(u: TestUser, streamId: number, topic: string, content: string): Promise<number> {
  return (await ok(api(u).post("/messages", { type: "stream", to: streamId, topic, content }))).id;
}

async function replyAddress(userId: number, messageId: number): Promise<string> {
  return (await replyAddressFor(srv.app.db, srv.app, { userId, messageId }))!;
}

async function makeChannel(u: TestUser, name: string, extra: Record<string, unknown> = {}, principals?: number[]): Promise<number> {
  await ok(api(u).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]), principals: principals && JSON.stringify(principals), ...extra }));
  const row = await srv.app.db.selectFrom("streams").select("id").where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

before(async () => {
  srv = await startTestServer({
    emailGatewayPattern: PATTERN,
    emailGatewayPort: 0,
    emailGatewayHost: "127.0.0.1",
    emailGatewayMaxMessageBytes: 3 * 1024 * 1024,
    maxFileUploadSizeMib: 1,
  });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  channelId = await makeChannel(t.owner, "mail room", {}, [t.owner.id, t.member.id, t.member2.id]);
  privateId = await makeChannel(t.owner, "secret", { invite_only: true }, [t.owner.id, t.member.id]);
  otherChannelId = await makeChannel(o.owner, "elsewhere");
});

after(async () => {
  await srv?.close();
});

describe("reply addresses", () => {
  test("are mm and 32 hex digits through the pattern, and none without a gateway", async () => {
    const id = await postToChannel(t.member2, channelId, "plans", "first");
    assert.match(await replyAddress(t.member.id, id), /^mm[0-9a-f]{32}@gw\.confab\.test$/);
    const plain = await startTestServer();
    try {
      assert.equal(await replyAddressFor(plain.app.db, plain.app, { userId: t.member.id, messageId: id }), null);
    } finally {
      await plain.close();
    }
  });

  test("a reply lands in the conversation as the user, quote stripped, attachment uploaded and linked", async () => {
    const original = await postToChannel(t.member2, channelId, "plans", "Shall we meet on Friday?");
    const to = await replyAddress(t.member.id, original);
    const res = await send(srv, {
      to,
      subject: "Re: plans",
      text: "Friday works for me.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Max <max@zulip.example.com> wrote:\n> Shall we meet on Friday?\n",
      attachments: [{ filename: "agenda.txt", content: Buffer.from("1. coffee\n") }],
    });
    assert.ok(res.accepted, res.response);
    const m = await latestMessage();
    assert.equal(m.sender_id, t.member.id);
    assert.equal(m.stream_id, channelId);
    assert.equal(m.topic, "plans");
    assert.match(m.content, /^Friday works for me\.\n\n\[agenda\.txt\]\(\/user_uploads\/\d+\/[^)]+\/agenda\.txt\)$/);
    assert.doesNotMatch(m.content, /wrote:|Shall we meet/);
    // The upload is the member's and belongs to the message, so it can be fetched.
    const url = /\((\/user_uploads\/[^)]+)\)/.exec(m.content)![1];
    const attachment = await srv.app.db.selectFrom("attachments").selectAll().where("path_id", "=", url.slice("/user_uploads/".length)).executeTakeFirstOrThrow();
    assert.equal(attachment.owner_id, t.member.id);
    const link = await srv.app.db.selectFrom("attachment_messages").selectAll().where("attachment_id", "=", attachment.id).executeTakeFirstOrThrow();
    assert.equal(link.message_id, m.id);
    const file = await fetch(`${srv.url}${url}`, { headers: { authorization: "Basic " + Buffer.from(`${t.member2.email}:${t.member2.apiKey}`).toString("base64") } });
    assert.equal(await file.text(), "1. coffee\n");
    // Zulip no longer limits a reply address's uses; each is counted.
    const again = await send(srv, { to, subject: "Re: plans", text: "And bring the slides." });
    assert.ok(again.accepted, again.response);
    assert.equal((await latestMessage()).content, "And bring the slides.");
    const row = await srv.app.db.selectFrom("email_reply_addresses").selectAll().where("email_token", "=", to.split("@")[0]).executeTakeFirstOrThrow();
    assert.equal(row.times_used, 2);
  });

  test("a reply to a direct message answers its sender; one to a group answers the group", async () => {
    const dm = (await ok(api(t.member2).post("/messages", { type: "direct", to: JSON.stringify([t.member.id]), content: "psst" }))).id;
    assert.ok((await send(srv, { to: await replyAddress(t.member.id, dm), subject: "Re: psst", text: "what?" })).accepted);
    let m = await latestMessage();
    assert.deepEqual([m.sender_id, m.stream_id, m.dm_key, m.content], [t.member.id, null, [t.member.id, t.member2.id].sort((a, b) => a - b).join(","), "what?"]);

    const group = (await ok(api(t.member2).post("/messages", { type: "direct", to: JSON.stringify([t.member.id, t.admin.id]), content: "all" }))).id;
    assert.ok((await send(srv, { to: await replyAddress(t.member.id, group), text: "here" })).accepted);
    m = await latestMessage();
    assert.deepEqual([m.sender_id, m.dm_key], [t.member.id, [t.member.id, t.member2.id, t.admin.id].sort((a, b) => a - b).join(",")]);
  });

  test("an autoresponder's mail is taken and dropped", async () => {
    const id = await postToChannel(t.member2, channelId, "plans", "anyone?");
    const before = await messageCount();
    const res = await send(srv, { to: await replyAddress(t.member.id, id), text: "I am away.", headers: { "Auto-Submitted": "auto-replied" } });
    assert.ok(res.accepted, res.response);
    assert.equal(await messageCount(), before);
  });

  test("an address whose message was deleted, or whose user was deactivated, is refused at RCPT", async () => {
    const gone = await postToChannel(t.member2, channelId, "plans", "to be deleted");
    const goneAddress = await replyAddress(t.member.id, gone);
    await ok(api(t.admin).delete(`/messages/${gone}`));
    const kept = await postToChannel(t.member2, channelId, "plans", "kept");
    const guestAddress = await replyAddress(t.guest.id, kept);
    await ok(api(t.admin).delete(`/users/${t.guest.id}`));
    const before = await messageCount();
    for (const to of [goneAddress, guestAddress]) {
      const res = await send(srv, { to, text: "hello?" });
      assert.equal(res.accepted, false);
      assert.match(res.response, /^550 5\.1\.1 Bad destination mailbox address: Zulip notification reply address is invalid\./);
    }
    assert.equal(await messageCount(), before);
  });

  test("a reply into a private channel the user has left is refused", async () => {
    const id = await postToChannel(t.owner, privateId, "inner", "members only");
    const to = await replyAddress(t.member.id, id);
    await ok(api(t.member).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["secret"]) }));
    const before = await messageCount();
    const res = await send(srv, { to, text: "let me back in" });
    assert.equal(res.accepted, false);
    assert.match(res.response, /^550 5\.7\.1 Permission denied: Not authorized to send to channel 'secret'/);
    assert.equal(await messageCount(), before);
  });
});

describe("channel addresses", () => {
  test("a mail lands in the channel as Email Gateway, the subject (without Re:) as topic", async () => {
    const to = await channelAddress(t.member, channelId);
    const res = await send(srv, {
      to,
      subject: "Re: Build failed",
      text: "The nightly build failed.\n--\nCI robot\n\nOn Mon, Jan 1, 2024, Bob <bob@ci.example> wrote:\n> an earlier quoted report\n",
    });
    assert.ok(res.accepted, res.response);
    const m = await latestMessage();
    const bot = await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("email", "=", "emailgateway@zulip.com").executeTakeFirstOrThrow();
    assert.deepEqual([m.sender_id, m.stream_id, m.topic], [bot.id, channelId, "Build failed"]);
    // The address carries .show-sender, as Zulip's do; quotes and the signature go.
    assert.equal(m.content, "**From:** \"Sam Sender\" <sam@outside.example>\n\nThe nightly build failed.");
    const seen = await ok(api(t.member).get(`/messages/${m.id}`));
    assert.equal(seen.message.subject, "Build failed");
  });

  test("options in the address: quotes and footer kept, HTML preferred; no subject gives Zulip's topic", async () => {
    const base = await channelAddress(t.member, channelId);
    const [local, domain] = base.split("@");
    const to = `${local.replace(".show-sender", "")}.include-quotes.include-footer.prefer-html@${domain}`;
    const res = await send(srv, {
      to,
      subject: "",
      text: "plain version",
      html: "<p>Rich <b>text</b></p><blockquote type=\"cite\">quoted</blockquote><p>--<br>sig</p>",
    });
    assert.ok(res.accepted, res.response);
    const m = await latestMessage();
    assert.equal(m.topic, "Email with no subject");
    assert.equal(m.content, "Rich **text**\n\n> quoted\n\n--\nsig");
  });

  test("an HTML-only reply is converted, its quoted part left out", async () => {
    const to = await channelAddress(t.member, channelId);
    const res = await send(srv, {
      to,
      subject: "html",
      html: '<div>See <a href="https://example.com/x">the report</a></div><div class="gmail_quote">On Mon, A wrote:<blockquote>old</blockquote></div>',
    });
    assert.ok(res.accepted, res.response);
    assert.match((await latestMessage()).content, /See \[the report\]\(https:\/\/example\.com\/x\)$/);
  });

  test("unknown, forged and foreign addresses are refused at RCPT and post nothing", async () => {
    const good = await channelAddress(t.member, channelId);
    const forged = good.replace(/\.([0-9a-f]{32})\./, (_, tok: string) => `.${tok.slice(0, 31)}${tok[31] === "0" ? "1" : "0"}.`);
    const before = await messageCount();
    const cases: [string, RegExp][] = [
      [forged, /^550 5\.1\.1 Bad destination mailbox address: Bad stream token from email recipient/],
      [`mm${"0".repeat(32)}@gw.confab.test`, /^550 5\.1\.1 Bad destination mailbox address: Zulip notification reply address is invalid\./],
      ["someone@elsewhere.test", /^550 5\.1\.1 Bad destination mailbox address: Address not recognized by gateway\./],
      [`${"mm".repeat(200)}@gw.confab.test`, /^5\d\d /],
    ];
    for (const [to, expected] of cases) {
      const res = await send(srv, { to, subject: "hi", text: "hello" });
      assert.equal(res.accepted, false, to);
      assert.match(res.response, expected);
    }
    assert.equal(await messageCount(), before);
  });

  test("each organization's address reaches only its own channel", async () => {
    const to = await channelAddress(o.owner, otherChannelId);
    assert.ok((await send(srv, { to, subject: "news", text: "from outside" })).accepted);
    const m = await latestMessage();
    assert.deepEqual([m.stream_id, m.realm_id], [otherChannelId, o.realm.id]);
  });

  test("an address made by someone who has since left a private channel no longer posts there", async () => {
    const to = await channelAddress(t.owner, privateId);
    await ok(api(t.owner).delete("/users/me/subscriptions", { subscriptions: JSON.stringify(["secret"]) }));
    const before = await messageCount();
    const res = await send(srv, { to, subject: "x", text: "y" });
    assert.equal(res.accepted, false);
    assert.match(res.response, /^550 5\.7\.1 Permission denied: /);
    assert.equal(await messageCount(), before);
  });

  test("a mail posting as a user's own address comes from that user", async () => {
    const to = await channelAddress(t.member, channelId, t.member.id);
    assert.ok((await send(srv, { to, subject: "as me", text: "mine" })).accepted);
    const m = await latestMessage();
    assert.deepEqual([m.sender_id, m.topic], [t.member.id, "as me"]);
  });
});

describe("limits", () => {
  test("a mail over the size limit is refused and posts nothing", async () => {
    const to = await channelAddress(t.member, channelId);
    const before = await messageCount();
    const res = await send(srv, { to, subject: "big", text: "see attached", attachments: [{ filename: "big.bin", content: Buffer.alloc(4 * 1024 * 1024, 7) }] });
    assert.equal(res.accepted, false);
    assert.match(res.response, /^552 5\.3\.4 Message is larger than the limit of 3145728 bytes/);
    assert.equal(await messageCount(), before);
  });

  test("an attachment over the upload limit is refused before anything is stored", async () => {
    const to = await channelAddress(t.member, channelId);
    const before = await messageCount();
    const uploads = (await srv.app.db.selectFrom("attachments").select("id").execute()).length;
    const res = await send(srv, {
      to,
      subject: "two files",
      text: "see attached",
      attachments: [
        { filename: "small.txt", content: "ok" },
        { filename: "large.bin", content: Buffer.alloc(1024 * 1024 + 1, 1) },
      ],
    });
    assert.equal(res.accepted, false);
    assert.match(res.response, /^552 5\.3\.4 Attachment large\.bin is larger than this server's configured maximum upload size \(1 MiB\)\./);
    assert.equal(await messageCount(), before);
    assert.equal((await srv.app.db.selectFrom("attachments").select("id").execute()).length, uploads);
  });

  test("mail to an organization's channel addresses is rate limited; reply addresses are not", async () => {
    const limited = await startTestServer({
      emailGatewayPattern: PATTERN,
      emailGatewayPort: 0,
      rateLimiting: true,
      rateLimitRules: { ...DEFAULT_RATE_LIMIT_RULES, email_mirror_by_realm: [[3600, 2]] },
    });
    try {
      const realm = await createTestRealm(limited.app);
      const owner = new Api(limited.url, realm.owner);
      await ok(owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "alerts" }]) }));
      const stream = await limited.app.db.selectFrom("streams").select("id").where("name", "=", "alerts").executeTakeFirstOrThrow();
      const to = (await ok(owner.get(`/streams/${stream.id}/email_address`))).email;
      for (let i = 0; i < 2; i++) assert.ok((await send(limited, { to, subject: `alert ${i}`, text: "x" })).accepted);
      const res = await send(limited, { to, subject: "alert 3", text: "x" });
      assert.equal(res.accepted, false);
      assert.match(res.response, /^450 4\.7\.0 Rate-limited due to too many emails on this realm\./);
      const id = (await ok(owner.post("/messages", { type: "stream", to: stream.id, topic: "t", content: "hi" }))).id;
      const reply = (await replyAddressFor(limited.app.db, limited.app, { userId: realm.owner.id, messageId: id }))!;
      assert.ok((await send(limited, { to: reply, text: "still fine" })).accepted);
    } finally {
      await limited.close();
    }
  });
});

describe("TLS", () => {
  test("with a key and certificate, the gateway offers STARTTLS and takes mail over it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-gateway-tls-"));
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"], { stdio: "ignore" });
    const secure = await startTestServer({ emailGatewayPattern: PATTERN, emailGatewayPort: 0, emailGatewayTlsKeyFile: key, emailGatewayTlsCertFile: cert });
    try {
      const realm = await createTestRealm(secure.app);
      const owner = new Api(secure.url, realm.owner);
      await ok(owner.post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "sealed" }]) }));
      const stream = await secure.app.db.selectFrom("streams").select("id").where("name", "=", "sealed").executeTakeFirstOrThrow();
      const to = (await ok(owner.get(`/streams/${stream.id}/email_address`))).email;
      const res = await send(secure, { to, subject: "over TLS", text: "sealed" }, fs.readFileSync(cert));
      assert.ok(res.accepted, res.response);
      const m = await secure.app.db.selectFrom("messages").selectAll().orderBy("id", "desc").executeTakeFirstOrThrow();
      assert.deepEqual([m.stream_id, m.topic], [stream.id, "over TLS"]);
    } finally {
      await secure.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
