/** The first start: an empty database gets an organization and an owner who can use it at once. */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { bootstrapFirstRealm } from "../../src/cli/bootstrap.js";

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(() => srv.close());

test("creates an organization and owner once, whose credentials work and who is in the default channel", async () => {
  const created = await bootstrapFirstRealm(srv.app);
  assert.ok(created);
  assert.equal(await bootstrapFirstRealm(srv.app), undefined, "an existing organization is left alone");
  const owner = new Api(srv.url, { email: created.owner.delivery_email, apiKey: created.owner.api_key });
  assert.equal(created.zuliprc, `[api]\nemail=${created.owner.delivery_email}\nkey=${created.owner.api_key}\nsite=${srv.app.config.externalUrl}\n`);

  // The printed password signs the owner in to the web client.
  const login = await fetch(`${srv.url}/login/`, {
    method: "POST",
    body: new URLSearchParams({ username: created.owner.delivery_email, password: created.password }),
    redirect: "manual",
  });
  assert.deepEqual([login.status, login.headers.get("location")], [303, "/"]);
  assert.match(created.password, /^[\w-]{16}$/);

  const me = await owner.get("/users/me");
  assert.equal(me.body.role, 100);
  const subs = await owner.get("/users/me/subscriptions");
  assert.deepEqual(subs.body.subscriptions.map((s: { name: string }) => s.name), ["general"]);
  const sent = await owner.post("/messages", { type: "stream", to: "general", topic: "hello", content: "first!" });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const read = await owner.get("/messages", { anchor: "newest", num_before: 5, num_after: 0 });
  assert.ok(read.body.messages.some((m: { id: number }) => m.id === sent.body.id));
});

test("when the owner's zuliprc cannot be kept, nothing is created and the next start tries again", async () => {
  const fresh = await startTestServer();
  try {
    await assert.rejects(
      bootstrapFirstRealm(fresh.app, () => {
        throw new Error("EACCES: the data directory is not writable");
      }),
      /EACCES/,
    );
    assert.equal((await fresh.app.db.selectFrom("realms").select("id").execute()).length, 0);
    let kept = "";
    const created = await bootstrapFirstRealm(fresh.app, (text) => (kept = text));
    assert.ok(created);
    assert.equal(kept, created.zuliprc);
  } finally {
    await fresh.close();
  }
});
