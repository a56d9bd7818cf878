import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

export async function up(_db: Kysely<any>, _dialect: Dialect): Promise<void> {}
