import { sql, type Kysely } from "kysely";

/**
 * Names the organization keeps unique: custom profile field labels (exactly) and channel folder
 * names (ignoring case). The actions check first and answer in Zulip's words; these indexes
 * keep concurrent requests from both getting through.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("custom_profile_fields_realm_name").on("custom_profile_fields").unique().columns(["realm_id", "name"]).execute();
  await db.schema
    .createIndex("channel_folders_realm_lower_name")
    .on("channel_folders")
    .unique()
    .expression(sql`realm_id, lower(name)`)
    .execute();
}
