/** Setting up organizations for invitation tests: permission settings, scalar settings, channels. */
import type { AppContext } from "../../src/context.js";
import { systemGroupIds } from "../../src/store/groups.js";

/** Points an organization permission setting at one of its system groups. */
export async function setRealmGroupSetting(app: AppContext, realmId: number, setting: string, systemGroup: string): Promise<void> {
  const row = await app.db.selectFrom("realms").select("group_settings").where("id", "=", realmId).executeTakeFirstOrThrow();
  const settings = JSON.parse(row.group_settings) as Record<string, number>;
  settings[setting] = (await systemGroupIds(app.db, realmId)).get(systemGroup)!;
  await app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", realmId).execute();
}

export async function setRealmProp(app: AppContext, realmId: number, key: string, value: unknown): Promise<void> {
  const row = await app.db.selectFrom("realms").select("props").where("id", "=", realmId).executeTakeFirstOrThrow();
  const props = { ...JSON.parse(row.props), [key]: value };
  await app.db.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", realmId).execute();
}

export async function streamId(app: AppContext, realmId: number, name: string): Promise<number> {
  const row = await app.db.selectFrom("streams").select("id").where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

/** Forgets every invitation and every invitation email sent. */
export async function clearInvites(app: AppContext): Promise<void> {
  await app.db.deleteFrom("email_invites").execute();
  await app.db.deleteFrom("multiuse_invites").execute();
  await app.db.deleteFrom("invite_emails_sent").execute();
}
