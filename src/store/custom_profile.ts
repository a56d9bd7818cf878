import type { Executor } from "./schema.js";

export type ProfileData = Record<string, { value: string; rendered_value?: string }>;

/** Every user's custom profile field values, as the API's `profile_data` objects. */
export async function profileDataByUser(db: Executor, realmId: number): Promise<Map<number, ProfileData>> {
  const rows = await db
    .selectFrom("custom_profile_values")
    .innerJoin("users", "users.id", "custom_profile_values.user_id")
    .select(["custom_profile_values.user_id", "custom_profile_values.field_id", "custom_profile_values.value", "custom_profile_values.rendered_value"])
    .where("users.realm_id", "=", realmId)
    .execute();
  const byUser = new Map<number, ProfileData>();
  for (const r of rows) {
    const data = byUser.get(r.user_id) ?? {};
    data[String(r.field_id)] = r.rendered_value === null ? { value: r.value } : { value: r.value, rendered_value: r.rendered_value };
    byUser.set(r.user_id, data);
  }
  return byUser;
}

export async function listCustomProfileFields(db: Executor, realmId: number) {
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id").execute();
}
