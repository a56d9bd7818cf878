import { FLAG_BITS } from "../../src/domain/message_flags.js";
/** Helpers for tests of event queues: waiting for a long-poll to start, and seeding messages. */
import type { AppContext } from "../../src/context.js";
import type { Running } from "../../src/server.js";

/** Resolves once a GET /events on this queue is waiting; set it up before sending the request. */
export function nextLongPoll(srv: Running, queueId: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = srv.app.eventQueues.onLongPoll((queue) => {
      if (queue.queueId !== queueId) return;
      stop();
      resolve();
    });
  });
}

export interface SeedMessage {
  realmId: number;
  senderId: number;
  /** A channel message when set, else a direct message among `recipients`. */
  streamId?: number;
  topic?: string;
  recipients: { userId: number; flags: number }[];
}

/** Writes a message and its per-user rows directly, for tests of state built from stored messages. */
export async function seedMessage(app: AppContext, m: SeedMessage): Promise<number> {
  const participants = [...new Set([m.senderId, ...m.recipients.map((r) => r.userId)])].sort((a, b) => a - b);
  let recipientId: number;
  if (m.streamId !== undefined) {
    const stream = await app.db.selectFrom("streams").select("recipient_id").where("id", "=", m.streamId).executeTakeFirstOrThrow();
    recipientId = stream.recipient_id!;
  } else {
    const other = participants.find((id) => id !== m.senderId) ?? m.senderId;
    const row = await app.db.selectFrom("recipients").select("id").where("type", "=", 1).where("type_id", "=", other).executeTakeFirstOrThrow();
    recipientId = row.id;
  }
  const { id } = await app.db
    .insertInto("messages")
    .values({
      realm_id: m.realmId,
      sender_id: m.senderId,
      recipient_id: recipientId,
      stream_id: m.streamId ?? null,
      topic: m.topic ?? "",
      dm_key: m.streamId === undefined ? participants.join(",") : null,
      content: "hello",
      rendered_content: "<p>hello</p>",
      client: "test",
      date_sent: Math.floor(Date.now() / 1000),
      last_edit_time: null,
      last_moved_time: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await app.db
    .insertInto("user_messages")
    // A direct message's rows carry is_private, as the server writes them.
    .values(m.recipients.map((r) => ({ user_id: r.userId, message_id: id, flags: r.flags | (m.streamId === undefined ? FLAG_BITS.is_private : 0) })))
    .execute();
  return id;
}

/**
 * Limits who can see all users to role:members (so guests see only the people they share a
 * channel or conversation with). Returns a function that restores the previous setting.
 */
export async function restrictUserAccessToMembers(app: AppContext, realmId: number): Promise<() => Promise<void>> {
  const { group_settings } = await app.db.selectFrom("realms").select("group_settings").where("id", "=", realmId).executeTakeFirstOrThrow();
  const members = await app.db
    .selectFrom("user_groups")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", "role:members")
    .executeTakeFirstOrThrow();
  const settings = { ...JSON.parse(group_settings), can_access_all_users_group: members.id };
  await app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", realmId).execute();
  return async () => {
    await app.db.updateTable("realms").set({ group_settings }).where("id", "=", realmId).execute();
  };
}
