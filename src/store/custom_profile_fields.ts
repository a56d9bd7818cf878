import type { Executor } from "./schema.js";

/** Field types whose values are Markdown and carry a rendered_value: short and long text. */
const RENDERED_FIELD_TYPES = [1, 2];

export interface ProfileFieldValue {
  value: string;
  rendered_value?: string | null;
}
export type ProfileData = Record<string, ProfileFieldValue>;

/** Each user's custom profile field values, keyed by field id as the API shows them. */
export async function profileDataByUser(db: Executor, realmId: number, userIds?: number[]): Promise<Map<number, ProfileData>> {
  const out = new Map<number, ProfileData>();
  if (userIds && !userIds.length) return out;
  let q = db
    .selectFrom("custom_profile_values")
    .innerJoin("custom_profile_fields", "custom_profile_fields.id", "custom_profile_values.field_id")
    .select([
      "custom_profile_values.user_id",
      "custom_profile_values.field_id",
      "custom_profile_values.value",
      "custom_profile_values.rendered_value",
      "custom_profile_fields.field_type",
    ])
    .where("custom_profile_fields.realm_id", "=", realmId);
  if (userIds) q = q.where("custom_profile_values.user_id", "in", userIds);
  for (const row of await q.orderBy("custom_profile_values.field_id").execute()) {
    const data = out.get(row.user_id) ?? {};
    data[String(row.field_id)] = RENDERED_FIELD_TYPES.includes(row.field_type)
      ? { value: row.value, rendered_value: row.rendered_value }
      : { value: row.value };
    out.set(row.user_id, data);
  }
  return out;
}
