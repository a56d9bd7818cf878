import type { Insertable, Selectable } from "kysely";
import type { CustomProfileFieldTable, Executor } from "./schema.js";
import { isRenderedFieldType } from "../domain/custom_profile_fields.js";
import { isStorableId } from "./ids.js";
import { preparedRead } from "./prepared.js";

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
    data[String(row.field_id)] = isRenderedFieldType(row.field_type)
      ? { value: row.value, rendered_value: row.rendered_value }
      : { value: row.value };
    out.set(row.user_id, data);
  }
  return out;
}

export type CustomProfileFieldRow = Selectable<CustomProfileFieldTable>;

export async function getCustomProfileField(db: Executor, realmId: number, id: number): Promise<CustomProfileFieldRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

/** Labels are unique per organization, compared exactly; `exceptId` is the field being renamed. */
export async function customProfileFieldNameTaken(db: Executor, realmId: number, name: string, exceptId?: number): Promise<boolean> {
  return !!(await db
    .selectFrom("custom_profile_fields")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .$if(exceptId !== undefined, (q) => q.where("id", "!=", exceptId!))
    .executeTakeFirst());
}

/** How many fields are shown in profile summaries, not counting `exceptId`. */
export async function countFieldsInProfileSummary(db: Executor, realmId: number, exceptId?: number): Promise<number> {
  const rows = await db
    .selectFrom("custom_profile_fields")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("display_in_profile_summary", "=", 1)
    .$if(exceptId !== undefined, (q) => q.where("id", "!=", exceptId!))
    .execute();
  return rows.length;
}

/** Adds a field after every existing one (its order is its id, as in Zulip). */
export async function insertCustomProfileField(
  db: Executor,
  values: Omit<Insertable<CustomProfileFieldTable>, "order">,
): Promise<number> {
  const { id } = await db.insertInto("custom_profile_fields").values({ ...values, order: 0 }).returning("id").executeTakeFirstOrThrow();
  await db.updateTable("custom_profile_fields").set({ order: id }).where("id", "=", id).execute();
  return id;
}

export async function getProfileValue(db: Executor, userId: number, fieldId: number) {
  return db.selectFrom("custom_profile_values").selectAll().where("user_id", "=", userId).where("field_id", "=", fieldId).executeTakeFirst();
}

export async function setProfileValue(db: Executor, userId: number, fieldId: number, value: string, renderedValue: string | null): Promise<void> {
  const existing = await getProfileValue(db, userId, fieldId);
  if (existing) {
    await db
      .updateTable("custom_profile_values")
      .set({ value, rendered_value: renderedValue })
      .where("user_id", "=", userId)
      .where("field_id", "=", fieldId)
      .execute();
  } else {
    await db.insertInto("custom_profile_values").values({ user_id: userId, field_id: fieldId, value, rendered_value: renderedValue }).execute();
  }
}

export async function deleteProfileValue(db: Executor, userId: number, fieldId: number): Promise<void> {
  await db.deleteFrom("custom_profile_values").where("user_id", "=", userId).where("field_id", "=", fieldId).execute();
}

export const listCustomProfileFields: (db: Executor, realmId: number) => Promise<CustomProfileFieldRow[]> = preparedRead((db, realmId: number) =>
  db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("order").orderBy("id"),
);

export type CustomProfileFieldChanges = Partial<
  Pick<CustomProfileFieldRow, "name" | "hint" | "field_data" | "display_in_profile_summary" | "required" | "editable_by_user" | "order">
>;

export async function updateCustomProfileField(db: Executor, id: number, changes: CustomProfileFieldChanges): Promise<void> {
  if (Object.keys(changes).length) await db.updateTable("custom_profile_fields").set(changes).where("id", "=", id).execute();
}

/** Removes a field with every user's value for it. */
export async function deleteCustomProfileField(db: Executor, id: number): Promise<void> {
  await db.deleteFrom("custom_profile_values").where("field_id", "=", id).execute();
  await db.deleteFrom("custom_profile_fields").where("id", "=", id).execute();
}

/** Forgets users' choices of a list field that are no longer offered. */
export async function deleteProfileValuesNotIn(db: Executor, fieldId: number, keep: string[]): Promise<void> {
  let q = db.deleteFrom("custom_profile_values").where("field_id", "=", fieldId);
  if (keep.length) q = q.where("value", "not in", keep);
  await q.execute();
}
