/**
 * Outgoing webhooks through real HTTP both ways: a local HTTP server plays the bot's service
 * (allowed through CONFAB_OUTBOUND_ALLOWED_NETWORKS), and what it is sent, what the bot answers
 * and what is reported on failure are read back through the API.
 */
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, type MadeChannel } from "../helpers/channels.js";
import type { Config } from "../../src/config.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Responder = (res: http.ServerResponse) => void;

/** The bot's service: records each request and answers it with the next responder (the last repeats). */
class BotService {
  readonly received: Received[] = [];
  responders: Responder[] = [];
  private readonly held = new Set<http.ServerResponse>();
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<BotService> {
    const service: BotService = new BotService(
      http.createServer((req, res) => {
        let body = "";
        req.on("data", (c: Buffer) => (body += c.toString("utf8")));
        req.on("end", () => {
          service.received.push({ headers: req.headers, body });
          const respond = service.responders.length > 1 ? service.responders.shift()! : service.responders[0];
          respond ? respond(res) : service.held.add(res);
        });
      }),
    );
    await new Promise<void>((resolve) => service.server.listen(0, "127.0.0.1", resolve));
    return service;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  answer(responders: Responder[]): void {
    this.received.length = 0;
    this.responders = responders;
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const json = (status: number, value: unknown): Responder => (res) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};
const text = (status: number, body: string): Responder => (res) => {
  res.writeHead(status, { "content-type": "text/plain" });
  res.end(body);
};
/** Never answers (the server keeps the request open until it stops). */
const silence: Responder = () => {};

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

interface Setup {
  srv: TestServer;
  t: TestRealm;
  service: BotService;
  channel: MadeChannel;
  bot: { id: number; fullName: string; email: string; token: string };
}

async function setup(overrides: Partial<Config>, iface = 1, fullName = "Hook Bot"): Promise<Setup> {
  const service = await BotService.start();
  const srv = await startTestServer({ outgoingWebhookTimeoutMs: 300, ...overrides });
  const t = await createTestRealm(srv.app);
  const channel = await makeChannel(srv, t, { subscribers: [t.member] });
  const created = await ok(
    new Api(srv.url, t.member).post("/bots", {
      full_name: fullName,
      short_name: fullName.toLowerCase().replace(/ /g, "-"),
      bot_type: 3,
      payload_url: JSON.stringify(service.url),
      interface_type: iface,
    }),
  );
  const row = await srv.app.db.selectFrom("users").select(["id", "email"]).where("id", "=", created.user_id).executeTakeFirstOrThrow();
  const svc = await srv.app.db.selectFrom("bot_services").select("token").where("user_id", "=", row.id).executeTakeFirstOrThrow();
  return { srv, t, service, channel, bot: { id: row.id, fullName, email: row.email, token: svc.token } };
}

const api = (s: Setup, u: TestUser) => new Api(s.srv.url, u);

async function sendToChannel(s: Setup, content: string, topic = "pings"): Promise<number> {
  return (await ok(api(s, s.t.member).post("/messages", { type: "stream", to: s.channel.name, topic, content }))).id;
}
async function sendDirect(s: Setup, content: string): Promise<number> {
  return (await ok(api(s, s.t.member).post("/messages", { type: "direct", to: JSON.stringify([s.bot.id]), content }))).id;
}

/** The messages the bot sent that the member can see, oldest first. */
async function fromBot(s: Setup): Promise<Record<string, any>[]> {
  const body = await ok(
    api(s, s.t.member).get("/messages", {
      anchor: "newest",
      num_before: 100,
      num_after: 0,
      narrow: JSON.stringify([{ operator: "sender", operand: s.bot.id }]),
      apply_markdown: false,
    }),
  );
  return body.messages;
}

/** Waits until the bot has sent `count` messages, and returns them. */
const botMessages = (s: Setup, count: number) =>
  waitFor(`${count} messages from the bot`, async () => {
    const messages = await fromBot(s);
    return messages.length >= count ? messages : undefined;
  });

/** Waits until no call is left in the outbox: every delivery, retry and notice is done. */
const outboxDrained = (s: Setup) =>
  waitFor("the outbox to drain", async () => {
    const left = await s.srv.app.db.selectFrom("outbox_jobs").select("id").where("kind", "=", "outgoing_webhook").execute();
    return left.length ? undefined : true;
  });

const LOOPBACK = { outboundAllowedNetworks: ["127.0.0.0/8"] };

describe("outgoing webhooks", () => {
  let s: Setup;
  before(async () => {
    s = await setup(LOOPBACK);
  });
  after(async () => {
    await s.srv.close();
    await s.service.stop();
  });

  test("a mention in a channel posts Zulip's payload, and the answer appears in the same topic from the bot", async () => {
    s.service.answer([json(200, { content: "pong" })]);
    const id = await sendToChannel(s, `@**${s.bot.fullName}** ping`);
    const [reply] = await botMessages(s, 1);
    assert.equal(s.service.received.length, 1);
    const { headers, body } = s.service.received[0];
    assert.equal(headers["content-type"], "application/json");
    assert.match(String(headers["user-agent"]), /^ZulipOutgoingWebhook\//);
    const payload = JSON.parse(body);
    assert.deepEqual(Object.keys(payload).sort(), ["bot_email", "bot_full_name", "data", "message", "token", "trigger"]);
    assert.equal(payload.bot_email, s.bot.email);
    assert.equal(payload.bot_full_name, s.bot.fullName);
    assert.equal(payload.token, s.bot.token);
    assert.equal(payload.trigger, "mention");
    assert.equal(payload.data, `@**${s.bot.fullName}** ping`);
    const m = payload.message;
    assert.equal(m.id, id);
    assert.equal(m.content, `@**${s.bot.fullName}** ping`);
    assert.equal(m.content_type, "text/x-markdown");
    assert.match(m.rendered_content, /class="user-mention"/);
    assert.equal(m.type, "stream");
    assert.equal(m.stream_id, s.channel.id);
    assert.equal(m.display_recipient, s.channel.name);
    assert.equal(m.subject, "pings");
    assert.equal(m.sender_id, s.t.member.id);
    assert.equal(m.sender_full_name, s.t.member.fullName);

    assert.equal(reply.content, "pong");
    assert.equal(reply.type, "stream");
    assert.equal(reply.stream_id, s.channel.id);
    assert.equal(reply.subject, "pings");
    assert.equal(reply.client, "OutgoingWebhookResponse");
  });

  test("a direct message triggers the bot, which answers in the same conversation", async () => {
    const before = (await fromBot(s)).length;
    s.service.answer([json(200, { content: "hello back" })]);
    const id = await sendDirect(s, "hello bot");
    const messages = await botMessages(s, before + 1);
    const reply = messages.at(-1)!;
    const payload = JSON.parse(s.service.received[0].body);
    assert.equal(payload.trigger, "direct_message");
    assert.equal(payload.data, "hello bot");
    assert.equal(payload.message.type, "private");
    assert.deepEqual(payload.message.display_recipient.map((r: { id: number }) => r.id).sort(), [s.t.member.id, s.bot.id].sort());
    assert.equal(reply.content, "hello back");
    assert.equal(reply.type, "private");
    // The bot's copy is marked read once its service was called, as Zulip's worker marks it.
    const copy = await s.srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", s.bot.id).where("message_id", "=", id).executeTakeFirstOrThrow();
    assert.ok(Number(copy.flags) & FLAG_BITS.read);
    assert.deepEqual(reply.display_recipient.map((r: { id: number }) => r.id).sort(), [s.t.member.id, s.bot.id].sort());
  });

  test("nothing is posted for response_not_required, an empty content or a JSON empty string; a plain message triggers nothing", async () => {
    const before = (await fromBot(s)).length;
    s.service.answer([json(200, { response_not_required: true }), json(200, { content: "  " }), json(200, "")]);
    await sendToChannel(s, `@**${s.bot.fullName}** one`);
    await sendToChannel(s, `@**${s.bot.fullName}** two`);
    await sendToChannel(s, `@**${s.bot.fullName}** three`);
    await sendToChannel(s, "no mention here");
    await sendToChannel(s, `@_**${s.bot.fullName}** silent mention`);
    await waitFor("three calls", async () => (s.service.received.length === 3 ? true : undefined));
    await outboxDrained(s);
    assert.equal((await fromBot(s)).length, before);
    assert.equal(s.service.received.length, 3);
  });

  test("an error status is reported in the conversation and to the owner, without retrying", async () => {
    const before = (await fromBot(s)).length;
    s.service.answer([text(500, "it broke")]);
    const id = await sendToChannel(s, `@**${s.bot.fullName}** crash`, "errors");
    const messages = await botMessages(s, before + 2);
    await outboxDrained(s);
    assert.equal(s.service.received.length, 1);
    const inChannel = messages.slice(-2).find((m) => m.type === "stream")!;
    const toOwner = messages.slice(-2).find((m) => m.type === "private")!;
    assert.equal(inChannel.content, "Failure! Third party responded with 500");
    assert.equal(inChannel.subject, "errors");
    const url = `${s.srv.app.config.externalUrl}/#narrow/channel/${s.channel.id}-${s.channel.name.replace(/ /g, "-")}/topic/errors/near/${id}`;
    assert.equal(
      toOwner.content,
      `[A message](${url}) to your bot @_**${s.bot.fullName}** triggered an outgoing webhook.\n` +
        "The webhook got a response with status code *500*.\n" +
        "The response contains the following payload:\n```\nb'it broke'\n```",
    );
    assert.equal(toOwner.type, "private");
    assert.deepEqual(toOwner.display_recipient.map((r: { id: number }) => r.id).sort(), [s.t.member.id, s.bot.id].sort());
  });

  test("a server that never answers is tried four times, then the bot is reported unavailable", async () => {
    const before = (await fromBot(s)).length;
    s.service.answer([silence]);
    await sendToChannel(s, `@**${s.bot.fullName}** anyone?`, "timeouts");
    const messages = await botMessages(s, before + 2);
    await outboxDrained(s);
    assert.equal(s.service.received.length, 4);
    const contents = messages.slice(-2).map((m) => m.content);
    assert.ok(contents.includes("Failure! Bot is unavailable"), JSON.stringify(contents));
    const notice = contents.find((c) => c.startsWith("[A message]"))!;
    assert.match(notice, /triggered an outgoing webhook\.\nRequest timed out after 0\.3 seconds\.$/);
  });

  test("an answer that is not JSON, or not an object, is reported with the payload", async () => {
    const before = (await fromBot(s)).length;
    s.service.answer([text(200, "this isn't valid json"), json(200, true)]);
    await sendToChannel(s, `@**${s.bot.fullName}** garbage`, "garbage");
    const first = await botMessages(s, before + 2);
    await sendToChannel(s, `@**${s.bot.fullName}** garbage again`, "garbage");
    const messages = [...first.slice(-2), ...(await botMessages(s, before + 4)).slice(-2)].map((m) => m.content);
    assert.ok(messages.includes("Failure! Invalid JSON in response"));
    assert.ok(messages.includes("Failure! Invalid response format"));
    assert.ok(
      messages.some((c) =>
        c.endsWith(
          "The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n" +
            "> Invalid JSON in response\nThe response contains the following payload:\n```\n\"this isn't valid json\"\n```",
        ),
      ),
    );
    assert.ok(messages.some((c) => c.endsWith("> Invalid response format\nThe response contains the following payload:\n```\n'true'\n```")));
  });

  test("an unreachable server is retried, then reported", async () => {
    const gone = await BotService.start();
    const url = gone.url;
    await gone.stop();
    await s.srv.app.db.updateTable("bot_services").set({ base_url: url }).where("user_id", "=", s.bot.id).execute();
    try {
      const before = (await fromBot(s)).length;
      await sendToChannel(s, `@**${s.bot.fullName}** hello?`, "down");
      const contents = (await botMessages(s, before + 2)).slice(-2).map((m) => m.content);
      assert.ok(contents.includes("Failure! Bot is unavailable"));
      assert.ok(contents.some((c) => c.endsWith("\nA connection error occurred. Is my bot server down?")));
    } finally {
      await s.srv.app.db.updateTable("bot_services").set({ base_url: s.service.url }).where("user_id", "=", s.bot.id).execute();
    }
  });
});

describe("Slack-compatible outgoing webhooks", () => {
  let s: Setup;
  before(async () => {
    s = await setup(LOOPBACK, 2, "Slack Bot");
  });
  after(async () => {
    await s.srv.close();
    await s.service.stop();
  });

  test("post Zulip's form fields and answer with `text`", async () => {
    s.service.answer([json(200, { text: "from slack" })]);
    const id = await sendToChannel(s, `@**${s.bot.fullName}** hi`);
    const [reply] = await botMessages(s, 1);
    const { headers, body } = s.service.received[0];
    assert.equal(headers["content-type"], "application/x-www-form-urlencoded");
    const sent = await s.srv.app.db.selectFrom("messages").select("date_sent").where("id", "=", id).executeTakeFirstOrThrow();
    assert.deepEqual(
      [...new URLSearchParams(body)],
      [
        ["token", s.bot.token],
        ["team_id", `T${s.t.realm.id}`],
        ["team_domain", new URL(s.srv.app.config.externalUrl).host],
        ["channel_id", `C${s.channel.id}`],
        ["channel_name", s.channel.name],
        ["thread_ts", String(sent.date_sent)],
        ["timestamp", String(sent.date_sent)],
        ["user_id", `U${s.t.member.id}`],
        ["user_name", s.t.member.fullName],
        ["text", `@**${s.bot.fullName}** hi`],
        ["trigger_word", "mention"],
        ["service_id", String(s.bot.id)],
      ],
    );
    assert.equal(reply.content, "from slack");
  });

  test("a direct message is refused in the conversation without calling the server", async () => {
    s.service.answer([json(200, { text: "never" })]);
    await sendDirect(s, "hi");
    const messages = await botMessages(s, 2);
    assert.equal(messages.at(-1)!.content, "Failure! Slack outgoing webhooks don't support direct messages.");
    assert.equal(s.service.received.length, 0);
  });
});

describe("outgoing webhooks to private addresses", () => {
  test("are refused unless the network is allowed, and reported as Zulip reports its proxy's refusal", async () => {
    const s = await setup({ outboundAllowedNetworks: [] });
    try {
      s.service.answer([json(200, { content: "should not be asked" })]);
      const id = await sendDirect(s, "hi");
      const contents = (await botMessages(s, 2)).map((m) => m.content);
      await outboxDrained(s);
      assert.equal(s.service.received.length, 0);
      assert.ok(contents.includes("Failure! Third party responded with 407"));
      const participants = [s.t.member.id, s.bot.id].sort((a, b) => a - b).join(",");
      assert.ok(
        contents.includes(
          `[A message](${s.srv.app.config.externalUrl}/#narrow/dm/${participants}/near/${id}) to your bot @_**${s.bot.fullName}** triggered an outgoing webhook.\n` +
            "The URL configured for the webhook is for a private or disallowed network.",
        ),
        JSON.stringify(contents),
      );
    } finally {
      await s.srv.close();
      await s.service.stop();
    }
  });
});

describe("an outgoing webhook whose attempt outlives its lease", () => {
  test("is answered once: the late attempt's answer is rolled back", async () => {
    const s = await setup({ ...LOOPBACK, outboxJobTimeoutMs: 300, outgoingWebhookTimeoutMs: 5000 });
    try {
      let lateSent = false;
      const late: Responder = (res) =>
        setTimeout(() => {
          json(200, { content: "late" })(res);
          lateSent = true;
        }, 800);
      s.service.answer([late, json(200, { content: "prompt" })]);
      await sendToChannel(s, `@**${s.bot.fullName}** race`);
      await botMessages(s, 1);
      await waitFor("the late answer", async () => (lateSent ? true : undefined));
      // A later call, answered after the late one reached Confab, shows that nothing came of it.
      await sendToChannel(s, `@**${s.bot.fullName}** again`);
      const contents = (await botMessages(s, 2)).map((m) => m.content);
      assert.deepEqual(contents, ["prompt", "prompt"]);
      assert.equal(s.service.received.length, 3);
    } finally {
      await s.srv.close();
      await s.service.stop();
    }
  });
});
