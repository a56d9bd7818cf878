import type { AppContext } from "../context.js";
import { runAction, type Tx } from "./run.js";
import { SYSTEM_GROUPS, SYSTEM_GROUP_NESTING } from "../domain/system_groups.js";
import { REALM_GROUP_SETTING_DEFAULTS, REALM_PROP_DEFAULTS, type RealmProps } from "../domain/realm_settings.js";
import { addSubgroups } from "../store/groups.js";
import { getRealm, type Realm } from "../store/realms.js";
import { createUserInTx } from "./users.js";
import { createStreamInTx } from "./streams.js";

/** Bots every organization has; Zulip keeps them in an internal realm, we give each realm its own. */
export const SYSTEM_BOTS = [
  { email: "notification-bot@zulip.com", full_name: "Notification Bot" },
  { email: "welcome-bot@zulip.com", full_name: "Welcome Bot" },
  { email: "emailgateway@zulip.com", full_name: "Email Gateway" },
] as const;

export interface CreateRealmInput {
  stringId: string;
  name: string;
  description?: string;
  props?: Partial<RealmProps>;
  /** Name of the first channel, which new-channel announcements go to. */
  defaultChannelName?: string;
}

const SYSTEM_GROUP_SETTINGS_FOR_SYSTEM_GROUPS = {
  can_add_members_group: "role:nobody",
  can_join_group: "role:nobody",
  can_leave_group: "role:nobody",
  can_manage_group: "role:nobody",
  can_mention_group: "role:nobody",
  can_remove_members_group: "role:nobody",
} as const;

export async function createRealmInTx(tx: Tx, app: AppContext, input: CreateRealmInput): Promise<Realm> {
  const now = Math.floor(app.clock.now());
  const { id: realmId } = await tx
    .insertInto("realms")
    .values({
      string_id: input.stringId,
      name: input.name,
      description: input.description ?? "",
      date_created: now,
      deactivated: 0,
      props: JSON.stringify({ ...REALM_PROP_DEFAULTS, ...input.props }),
      group_settings: "{}",
    })
    .returning("id")
    .executeTakeFirstOrThrow();

  const ids = new Map<string, number>();
  for (const g of SYSTEM_GROUPS) {
    const { id } = await tx
      .insertInto("user_groups")
      .values({
        realm_id: realmId,
        name: g.name,
        description: g.description,
        is_system_group: 1,
        date_created: null,
        creator_id: null,
        deactivated: 0,
        group_settings: "{}",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.set(g.name, id);
  }
  const settingsForSystemGroups = JSON.stringify(
    Object.fromEntries(Object.entries(SYSTEM_GROUP_SETTINGS_FOR_SYSTEM_GROUPS).map(([k, v]) => [k, ids.get(v)])),
  );
  await tx.updateTable("user_groups").set({ group_settings: settingsForSystemGroups }).where("realm_id", "=", realmId).execute();
  for (const [child, parent] of SYSTEM_GROUP_NESTING) await addSubgroups(tx, ids.get(parent)!, [ids.get(child)!]);

  const realmGroups = Object.fromEntries(
    Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([setting, group]) => [setting, ids.get(group)!]),
  );
  await tx.updateTable("realms").set({ group_settings: JSON.stringify(realmGroups) }).where("id", "=", realmId).execute();

  let realm = (await getRealm(tx, realmId))!;
  for (const bot of SYSTEM_BOTS) {
    await createUserInTx(tx, app, realm, {
      email: bot.email,
      fullName: bot.full_name,
      role: 400,
      isBot: true,
      botType: 1,
      isSystemBot: true,
    });
  }

  const channel = await createStreamInTx(tx, app, realm, null, {
    name: input.defaultChannelName ?? "general",
    description: "Everyone is added to this channel by default. Welcome! :octopus:",
    isDefault: true,
  });
  const props = { ...realm.props, new_stream_announcements_stream_id: channel.id, signup_announcements_stream_id: channel.id, zulip_update_announcements_stream_id: channel.id };
  await tx.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", realmId).execute();
  realm = (await getRealm(tx, realmId))!;
  return realm;
}

export async function createRealm(app: AppContext, input: CreateRealmInput): Promise<Realm> {
  return runAction(app, (tx) => createRealmInTx(tx, app, input));
}
