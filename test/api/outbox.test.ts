/**
 * The outbox: emails (and push bouncer calls) are queued in the database with the change that
 * causes them and sent by the outbox worker, which retries failures with backoff, lets one
 * worker at a time take a job even with several processes on one database, and finds the jobs
 * left when the server was down.
 */
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualTime } from "../helpers/time.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { parseMail } from "../helpers/mail.js";
import { TestSmtpServer } from "../helpers/smtp.js";
import { backgroundSettled } from "../../src/outbound/background.js";
import { openAppContext } from "../../src/server.js";
import { systemTimers } from "../../src/context.js";
import { OutboxWorker, retryDelaySeconds } from "../../src/workers/outbox.js";

const invite = async (srv: TestServer, r: TestRealm, emails: string[]) => {
  const res = await new Api(srv.url, r.admin).post("/invites", { invitee_emails: emails.join(","), stream_ids: [] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
};
const jobs = (srv: TestServer) => srv.app.db.selectFrom("outbox_jobs").select(["kind", "attempts", "next_attempt_at"]).execute();
const recipients = (smtp: TestSmtpServer) => smtp.received.map((raw) => parseMail(raw).to).sort();

/** Runs `body` with a server sending through a fresh SMTP server, and stops both afterwards. */
async function withMailServer(
  body: (srv: TestServer, r: TestRealm, smtp: TestSmtpServer) => Promise<TestServer | void>,
  time?: ManualTime,
  timeoutMs?: number,
) {
  const smtp = await TestSmtpServer.start();
  let srv = await startTestServer({ smtpUrl: smtp.url, ...(timeoutMs ? { outboxJobTimeoutMs: timeoutMs } : {}) }, time ? { clock: time, timers: time } : {});
  try {
    const r = await createTestRealm(srv.app);
    srv = (await body(srv, r, smtp)) ?? srv;
  } finally {
    await srv.close();
    await smtp.stop();
  }
}

describe("the outbox", () => {
  test("an email whose SMTP server is down is retried with backoff and delivered, once, when it is back", async () => {
    const time = new ManualTime(1800000000);
    await withMailServer(async (srv, r, smtp) => {
      await smtp.stop();
      await invite(srv, r, ["patient@example.com"]);
      await backgroundSettled(srv.app);
      assert.deepEqual(await jobs(srv), [{ kind: "email", attempts: 1, next_attempt_at: 1800000000 + retryDelaySeconds(1) }]);

      // Not due yet: the poll finds nothing to do.
      time.advance(retryDelaySeconds(1) - 1);
      await backgroundSettled(srv.app);
      assert.equal((await jobs(srv))[0].attempts, 1);

      // Still down at the second attempt: the next waits longer.
      time.advance(1);
      await srv.outbox.wake();
      const second = 1800000000 + retryDelaySeconds(1);
      assert.deepEqual(await jobs(srv), [{ kind: "email", attempts: 2, next_attempt_at: second + retryDelaySeconds(2) }]);
      assert.ok(retryDelaySeconds(2) > retryDelaySeconds(1));

      await smtp.listen();
      time.advance(retryDelaySeconds(2));
      await srv.outbox.wake();
      assert.deepEqual(recipients(smtp), ["patient@example.com"]);
      assert.deepEqual(await jobs(srv), []);
      time.advance(3600);
      await srv.outbox.wake();
      assert.equal(smtp.received.length, 1);
    }, time);
  });

  test("an attempt the SMTP server does not answer in time is given up and retried later", async () => {
    await withMailServer(
      async (srv, r, smtp) => {
        smtp.hold();
        await invite(srv, r, ["slow@example.com"]);
        await backgroundSettled(srv.app);
        const [job] = await jobs(srv);
        assert.equal(job.attempts, 1);
        assert.ok(job.next_attempt_at > srv.app.clock.now() + retryDelaySeconds(1) - 2, "not before the backoff");
        smtp.answer();
      },
      undefined,
      200,
    );
  });

  test("workers sharing the database never take the same job: each email is sent once", async () => {
    await withMailServer(async (srv, r, smtp) => {
      // This server's own worker stays out, so the two below start on the same jobs together.
      await srv.outbox.close();
      const emails = Array.from({ length: 30 }, (_, i) => `many${i}@example.com`);
      await invite(srv, r, emails);
      assert.equal((await jobs(srv)).length, 30);

      const contexts = [await openAppContext(srv.app.config), await openAppContext(srv.app.config)];
      try {
        const [a, b] = await Promise.all(contexts.map(({ app }) => new OutboxWorker(app, systemTimers).runPass()));
        assert.equal(a + b, 30);
        assert.deepEqual(recipients(smtp), emails.sort());
        assert.deepEqual(await jobs(srv), []);
      } finally {
        for (const c of contexts) await c.close();
      }
    });
  });

  test("a job another worker is performing is not taken, however often the others look", async () => {
    await withMailServer(async (srv, r, smtp) => {
      smtp.hold();
      await invite(srv, r, ["once@example.com"]);
      // This server's worker has taken the job and waits for the SMTP server's answer.
      while (!(await jobs(srv)).some((j) => j.attempts === 1)) await new Promise((resolve) => setTimeout(resolve, 10));
      const other = await openAppContext(srv.app.config);
      try {
        const worker = new OutboxWorker(other.app, systemTimers);
        assert.equal(await worker.runPass(), 0);
        smtp.answer();
        await backgroundSettled(srv.app);
        assert.equal(await worker.runPass(), 0);
      } finally {
        await other.close();
      }
      assert.deepEqual(recipients(smtp), ["once@example.com"]);
      assert.deepEqual(await jobs(srv), []);
    });
  });

  test("a job queued while no worker runs is sent by the next server on the database", async () => {
    await withMailServer(async (srv, r, smtp) => {
      await srv.outbox.close();
      await invite(srv, r, ["later@example.com"]);
      assert.equal((await jobs(srv)).length, 1);
      assert.equal(smtp.received.length, 0);
      const next = await srv.restart();
      await backgroundSettled(next.app);
      assert.deepEqual(recipients(smtp), ["later@example.com"]);
      assert.deepEqual(await jobs(next), []);
      return next;
    });
  });
});
