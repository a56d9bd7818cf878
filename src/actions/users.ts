import type { AppContext } from "../context.js";
import type { Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { addGroupMembers, systemGroupIds } from "../store/groups.js";
import { generateApiKey, hashPassword } from "../security/credentials.js";
import { isFullMember, systemGroupForRole } from "../domain/system_groups.js";
import { EMAIL_ADDRESS_VISIBILITY } from "../domain/realm_settings.js";

export interface CreateUserInput {
  email: string;
  fullName: string;
  role: number;
  password?: string;
  isBot?: boolean;
  /** 1 generic, 2 incoming webhook, 3 outgoing webhook, 4 embedded. */
  botType?: number;
  botOwnerId?: number;
  isSystemBot?: boolean;
  timezone?: string;
  dateJoined?: number;
}

/**
 * Creating the user row and what every user has: an API key, a personal recipient and
 * membership of the system group for their role. Callers validate and send events.
 */
export async function createUserInTx(tx: Tx, app: AppContext, realm: Realm, input: CreateUserInput): Promise<UserRow> {
  const now = input.dateJoined ?? Math.floor(app.clock.now());
  const visibility = input.isBot ? EMAIL_ADDRESS_VISIBILITY.EVERYONE : realm.props.email_address_visibility;
  const inserted = await tx
    .insertInto("users")
    .values({
      realm_id: realm.id,
      email: input.email,
      delivery_email: input.email,
      full_name: input.fullName,
      role: input.role,
      is_active: 1,
      is_bot: input.isBot ? 1 : 0,
      bot_type: input.isBot ? (input.botType ?? 1) : null,
      bot_owner_id: input.botOwnerId ?? null,
      is_system_bot: input.isSystemBot ? 1 : 0,
      api_key: generateApiKey(),
      password_hash: input.password ? await hashPassword(input.password) : null,
      date_joined: now,
      timezone: input.timezone ?? "",
      presence_enabled: 1,
      props: JSON.stringify({ email_address_visibility: visibility }),
    })
    .returningAll()
    .executeTakeFirstOrThrow();

  let user = inserted;
  if (visibility !== EMAIL_ADDRESS_VISIBILITY.EVERYONE) {
    // Hidden addresses are replaced by a stable placeholder, as Zulip does.
    const email = `user${inserted.id}@${app.config.fakeEmailDomain}`;
    await tx.updateTable("users").set({ email }).where("id", "=", inserted.id).execute();
    user = { ...inserted, email };
  }

  await tx.insertInto("recipients").values({ type: 1, type_id: user.id }).execute();
  const system = await systemGroupIds(tx, realm.id);
  const groups = [system.get(systemGroupForRole(input.role))!];
  if (input.role === 400 && isFullMember(input.role, now, realm.props.waiting_period_threshold, app.clock.now())) {
    groups.push(system.get("role:fullmembers")!);
  }
  for (const g of groups) await addGroupMembers(tx, g, [user.id]);
  return user;
}
