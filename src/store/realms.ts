import type { Selectable } from "kysely";
import type { Executor, RealmTable } from "./schema.js";
import { REALM_PROP_DEFAULTS, type RealmProps } from "../domain/realm_settings.js";

export type RealmRow = Selectable<RealmTable>;

export interface Realm {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: number;
  deactivated: boolean;
  props: RealmProps;
  /** Permission setting name -> user group id. */
  groupSettings: Record<string, number>;
}

export function toRealm(row: RealmRow): Realm {
  return {
    id: row.id,
    string_id: row.string_id,
    name: row.name,
    description: row.description,
    date_created: Number(row.date_created),
    deactivated: row.deactivated === 1,
    props: { ...REALM_PROP_DEFAULTS, ...JSON.parse(row.props) },
    groupSettings: JSON.parse(row.group_settings),
  };
}

/** For an organization shared between requests by a cache: no one may change it in place. */
export function frozenRealm(realm: Realm): Realm {
  Object.freeze(realm.props);
  Object.freeze(realm.groupSettings);
  return Object.freeze(realm);
}

export async function getRealm(db: Executor, id: number): Promise<Realm | undefined> {
  const row = await db.selectFrom("realms").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toRealm(row);
}

export async function getRealmByStringId(db: Executor, stringId: string): Promise<Realm | undefined> {
  const row = await db.selectFrom("realms").selectAll().where("string_id", "=", stringId).executeTakeFirst();
  return row && toRealm(row);
}

/** The organization served at the bare host: the first one created. */
export async function getDefaultRealm(db: Executor): Promise<Realm | undefined> {
  const row = await db.selectFrom("realms").selectAll().orderBy("id").limit(1).executeTakeFirst();
  return row && toRealm(row);
}

export async function updateRealmRow(
  db: Executor,
  realmId: number,
  changes: Partial<Pick<RealmRow, "name" | "description" | "props" | "group_settings">>,
): Promise<void> {
  await db.updateTable("realms").set(changes).where("id", "=", realmId).execute();
}
