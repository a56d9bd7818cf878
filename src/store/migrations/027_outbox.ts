import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/**
 * Work to do outside the database once a change has committed (emails, calls to the push
 * bouncer), kept until it is done so neither a crash nor a failing service loses it.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("outbox_jobs"), dialect)
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "double precision", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("outbox_jobs_due").on("outbox_jobs").columns(["next_attempt_at", "id"]).execute();
}
