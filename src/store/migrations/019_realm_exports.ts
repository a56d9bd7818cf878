import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Organization data exports requested through the API. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("realm_exports"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("acting_user_id", "integer", (c) => c.references("users.id"))
    .addColumn("type", "integer", (c) => c.notNull())
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("date_requested", "double precision", (c) => c.notNull())
    .addColumn("date_succeeded", "double precision")
    .addColumn("date_failed", "double precision")
    .addColumn("date_deleted", "double precision")
    // Where the archive is, relative to the data directory; null until it is written.
    .addColumn("path", "text")
    .execute();
  await db.schema.createIndex("realm_exports_realm").on("realm_exports").columns(["realm_id", "date_requested"]).execute();
}
