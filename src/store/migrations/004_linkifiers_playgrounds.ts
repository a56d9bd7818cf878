import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Organization linkifiers and code playgrounds. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("realm_linkifiers"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("pattern", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    // Linkifiers apply in this order (ties by id).
    .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await withId(db.schema.createTable("realm_playgrounds"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("pygments_language", "text", (c) => c.notNull())
    .addColumn("url_template", "text", (c) => c.notNull())
    .execute();

  // Patterns and names have no length limit, and PostgreSQL cannot index long text: there the
  // unique keys use a digest of it. (Actions check uniqueness first, to report it as Zulip does.)
  const long = (column: string) => (dialect === "postgres" ? sql.raw(`md5(${column})`) : sql.ref(column));
  await db.schema
    .createIndex("realm_linkifiers_realm_pattern")
    .on("realm_linkifiers")
    .unique()
    .expression(sql`realm_id, ${long("pattern")}`)
    .execute();
  await db.schema
    .createIndex("realm_playgrounds_realm_language_name")
    .on("realm_playgrounds")
    .unique()
    .expression(sql`realm_id, pygments_language, ${long("name")}`)
    .execute();
}
