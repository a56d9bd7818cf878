import type { AppContext } from "../context.js";
import type { Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { ChannelGroupSetting } from "../store/schema.js";
import { createAnonymousGroup, systemGroupIds } from "../store/groups.js";
import { renderMarkdown } from "../markdown/render.js";

export interface CreateStreamInput {
  name: string;
  description?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
  messageRetentionDays?: number | null;
  topicsPolicy?: string;
  folderId?: number | null;
  /** Group-setting values already resolved to user group ids. */
  groupSettings?: Partial<Record<ChannelGroupSetting, number>>;
}

/** Creating a channel row with Zulip's defaults; callers validate and send events. */
export async function createStreamInTx(
  tx: Tx,
  app: AppContext,
  realm: Realm,
  creator: UserRow | null,
  input: CreateStreamInput,
) {
  const system = await systemGroupIds(tx, realm.id);
  const nobody = system.get("role:nobody")!;
  const given = input.groupSettings ?? {};
  const administer =
    given.can_administer_channel_group ??
    (creator ? await createAnonymousGroup(tx, realm.id, [creator.id], []) : nobody);
  const inviteOnly = input.inviteOnly ?? false;
  const description = (input.description ?? "").replace(/\n/g, " ");
  const stream = await tx
    .insertInto("streams")
    .values({
      realm_id: realm.id,
      name: input.name,
      description,
      rendered_description: renderMarkdown(description).html,
      invite_only: inviteOnly ? 1 : 0,
      is_web_public: input.isWebPublic ? 1 : 0,
      history_public_to_subscribers: (input.historyPublicToSubscribers ?? !inviteOnly) ? 1 : 0,
      date_created: Math.floor(app.clock.now()),
      creator_id: creator?.id ?? null,
      message_retention_days: input.messageRetentionDays ?? null,
      is_archived: 0,
      folder_id: input.folderId ?? null,
      topics_policy: input.topicsPolicy ?? "inherit",
      recipient_id: null,
      first_message_id: null,
      can_add_subscribers_group: given.can_add_subscribers_group ?? nobody,
      can_administer_channel_group: administer,
      can_delete_any_message_group: given.can_delete_any_message_group ?? nobody,
      can_delete_own_message_group: given.can_delete_own_message_group ?? nobody,
      can_move_messages_out_of_channel_group: given.can_move_messages_out_of_channel_group ?? nobody,
      can_move_messages_within_channel_group: given.can_move_messages_within_channel_group ?? nobody,
      can_remove_subscribers_group: given.can_remove_subscribers_group ?? system.get("role:administrators")!,
      can_resolve_topics_group: given.can_resolve_topics_group ?? nobody,
      can_send_message_group: given.can_send_message_group ?? system.get("role:everyone")!,
      can_subscribe_group: given.can_subscribe_group ?? nobody,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const { id: recipientId } = await tx
    .insertInto("recipients")
    .values({ type: 2, type_id: stream.id })
    .returning("id")
    .executeTakeFirstOrThrow();
  await tx.updateTable("streams").set({ recipient_id: recipientId }).where("id", "=", stream.id).execute();
  if (input.isDefault) {
    await tx.insertInto("default_streams").values({ realm_id: realm.id, stream_id: stream.id }).execute();
  }
  return { ...stream, recipient_id: recipientId };
}
