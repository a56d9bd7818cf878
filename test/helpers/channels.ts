/** Reading and arranging channel state directly, for tests of channel administration. */
import assert from "node:assert/strict";
import type { AppContext } from "../../src/context.js";
import type { TestServer } from "./server.js";
import { Api, type ApiResponse } from "./client.js";
import type { TestRealm, TestUser } from "./realm.js";

export async function streamIdOf(app: AppContext, realmId: number, name: string): Promise<number> {
  const row = await app.db.selectFrom("streams").select("id").where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

export async function systemGroupId(app: AppContext, realmId: number, name: string): Promise<number> {
  const row = await app.db
    .selectFrom("user_groups")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .where("is_system_group", "=", 1)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Points an organization permission setting at a system group. */
export async function setRealmGroupSetting(app: AppContext, realmId: number, setting: string, groupName: string): Promise<void> {
  const { group_settings } = await app.db.selectFrom("realms").select("group_settings").where("id", "=", realmId).executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(group_settings), [setting]: await systemGroupId(app, realmId, groupName) };
  await app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", realmId).execute();
}

export async function setRealmProps(app: AppContext, realmId: number, changes: Record<string, unknown>): Promise<void> {
  const { props } = await app.db.selectFrom("realms").select("props").where("id", "=", realmId).executeTakeFirstOrThrow();
  await app.db.updateTable("realms").set({ props: JSON.stringify({ ...JSON.parse(props), ...changes }) }).where("id", "=", realmId).execute();
}

/**
 * Everything a channel request could change: the channel rows, default channels,
 * subscriptions, messages and their copies, and user groups.
 */
export async function snapshot(app: AppContext): Promise<unknown> {
  const db = app.db;
  return {
    streams: await db.selectFrom("streams").selectAll().orderBy("id").execute(),
    defaults: await db.selectFrom("default_streams").selectAll().orderBy("stream_id").execute(),
    subscriptions: await db.selectFrom("subscriptions").select(["user_id", "stream_id", "active"]).orderBy("user_id").orderBy("stream_id").execute(),
    messages: await db.selectFrom("messages").selectAll().orderBy("id").execute(),
    userMessages: await db.selectFrom("user_messages").selectAll().orderBy("message_id").orderBy("user_id").execute(),
    groups: await db.selectFrom("user_groups").select("id").orderBy("id").execute(),
    members: await db.selectFrom("user_group_members").selectAll().orderBy("group_id").orderBy("user_id").execute(),
  };
}

/**
 * Sends a request that must fail with this message (and code), checking that it changed
 * nothing and published nothing.
 */
export async function refused(
  srv: TestServer,
  call: () => Promise<ApiResponse>,
  msg: string,
  code = "BAD_REQUEST",
  status = 400,
): Promise<ApiResponse> {
  const before = await snapshot(srv.app);
  const published: unknown[] = [];
  const off = srv.app.bus.subscribe((n) => published.push(n.event));
  const r = await call();
  off();
  assert.deepEqual({ result: r.body.result, msg: r.body.msg, code: r.body.code, status: r.status }, { result: "error", msg, code, status });
  assert.deepEqual(await snapshot(srv.app), before, "a refused request changes nothing");
  assert.deepEqual(published, [], "a refused request publishes nothing");
  return r;
}

export async function ok(call: Promise<ApiResponse>): Promise<Record<string, any>> {
  const r = await call;
  assert.equal(r.body.result, "success", JSON.stringify(r.body));
  return r.body;
}

export interface MadeChannel {
  id: number;
  name: string;
}

let made = 0;

/**
 * A channel the organization's owner creates (and subscribes to, with these other subscribers),
 * administered besides the organization's administrators by member2 alone.
 */
export async function makeChannel(
  srv: TestServer,
  t: TestRealm,
  opts: { private?: boolean; subscribers?: TestUser[]; extra?: Record<string, unknown> } = {},
): Promise<MadeChannel> {
  const name = `channel ${++made}`;
  await ok(
    new Api(srv.url, t.owner).post("/users/me/subscriptions", {
      subscriptions: [{ name }],
      principals: [t.owner, ...(opts.subscribers ?? [])].map((u) => u.id),
      invite_only: !!opts.private,
      can_administer_channel_group: { direct_members: [t.member2.id], direct_subgroups: [] },
      ...opts.extra,
    }),
  );
  return { id: await streamIdOf(srv.app, t.realm.id, name), name };
}
