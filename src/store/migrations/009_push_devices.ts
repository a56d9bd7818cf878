import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Mobile push: legacy device tokens, end-to-end encrypted push devices, and bouncer identities. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("push_device_tokens"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    // Zulip's numbering: 1 = APNs, 2 = FCM.
    .addColumn("kind", "integer", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .addColumn("ios_app_id", "text")
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("push_device_tokens_user_kind_token")
    .on("push_device_tokens")
    .unique()
    .columns(["user_id", "kind", "token"])
    .execute();

  await withId(db.schema.createTable("push_devices"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    // A client-chosen 64-bit integer, kept as its decimal text so no precision is lost.
    .addColumn("push_account_id", "text", (c) => c.notNull())
    .addColumn("token_kind", "text", (c) => c.notNull())
    .addColumn("push_public_key", "text", (c) => c.notNull())
    // Set once the bouncer accepted the registration; the device is "active" from then on.
    .addColumn("bouncer_device_id", "text")
    // Set when the registration failed; cleared when the client registers again.
    .addColumn("error_code", "text")
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("push_devices_user_account")
    .on("push_devices")
    .unique()
    .columns(["user_id", "push_account_id"])
    .execute();

  // The bouncer knows organizations and users by UUID; each gets one the first time it is needed.
  await db.schema
    .createTable("push_uuids")
    .addColumn("owner_kind", "text", (c) => c.notNull())
    .addColumn("owner_id", "integer", (c) => c.notNull())
    .addColumn("uuid", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("push_uuids_pk", ["owner_kind", "owner_id"])
    .execute();
}
