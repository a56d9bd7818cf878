/**
 * Organization data exports: Zulip's export types, statuses and limits, how each table of the
 * schema is scoped to one organization, and the order tables can be loaded back in.
 */
import type { Selectable } from "kysely";
import type { RealmExportTable } from "../store/schema.js";
import { EMAIL_ADDRESS_VISIBILITY } from "./realm_settings.js";

export const ExportType = { PUBLIC: 1, FULL_WITH_CONSENT: 2 } as const;
export type ExportTypeValue = (typeof ExportType)[keyof typeof ExportType];

export const ExportStatus = { REQUESTED: 1, STARTED: 2, SUCCEEDED: 3, FAILED: 4, DELETED: 5 } as const;

/** Zulip's limits: five exports a week, and larger organizations go through the CLI. */
export const EXPORTS_PER_WEEK = 5;
export const MAX_EXPORTED_MESSAGES = 250_000;
export const WEEK_SECS = 7 * 24 * 3600;


export interface OwnerExportSettings {
  emailAddressVisibility: number;
  allowPrivateDataExport: boolean;
}

/** Why an export of this type can't be made, or null. */
export function exportRefusal(type: ExportTypeValue, owners: readonly OwnerExportSettings[], supportEmail: string): string | null {
  if (type === ExportType.FULL_WITH_CONSENT && !owners.some((o) => o.allowPrivateDataExport)) {
    return `Make sure at least one Organization Owner is consenting to the export or contact ${supportEmail} for help.`;
  }
  if (type === ExportType.PUBLIC && !owners.some((o) => o.emailAddressVisibility !== EMAIL_ADDRESS_VISIBILITY.NOBODY)) {
    return `Make sure at least one Organization Owner allows other Administrators to see their email address or contact ${supportEmail} for help`;
  }
  return null;
}

export type ExportRecord = Omit<Selectable<RealmExportTable>, "realm_id" | "path">;

/** One export as GET /export/realm and `realm_export` events show it. */
export function serializeExport(row: ExportRecord, url: string | null) {
  const pending = row.status === ExportStatus.REQUESTED || row.status === ExportStatus.STARTED;
  return {
    id: row.id,
    export_time: row.date_requested,
    acting_user_id: row.acting_user_id,
    export_url: row.status === ExportStatus.SUCCEEDED ? url : null,
    deleted_timestamp: row.date_deleted,
    failed_timestamp: row.date_failed,
    pending,
    export_type: row.type,
  };
}

/** Why an export can't be deleted, or null. */
export function deleteRefusal(status: number): string | null {
  if (status === ExportStatus.DELETED) return "Export already deleted";
  if (status === ExportStatus.FAILED) return "Export failed, nothing to delete";
  if (status === ExportStatus.REQUESTED || status === ExportStatus.STARTED) return "Export still in progress";
  return null;
}

/**
 * How a table's rows belong to an organization, read off its columns: the realm itself, or
 * references to rows that belong to it (a realm_id, a user, a message, a group, a channel).
 * A row is the organization's when every such reference is; so a user's flags on a message that
 * an export leaves out are left out too. New tables that follow these column names are exported
 * without further work.
 */
export type Parent = "realms" | "users" | "messages" | "user_groups" | "streams";
export type TableScope = { kind: "realm" } | { kind: "recipients" } | { kind: "columns"; refs: { column: string; parent: Parent }[] };

const PARENT_COLUMNS: [string, Parent][] = [
  ["realm_id", "realms"],
  ["user_id", "users"],
  ["message_id", "messages"],
  ["group_id", "user_groups"],
  ["stream_id", "streams"],
];

export function tableScope(table: string, columns: readonly string[]): TableScope | null {
  if (table === "realms") return { kind: "realm" };
  if (table === "recipients") return { kind: "recipients" };
  // A message row itself is filtered by its channel and sender, not by its stream_id reference.
  const refs = PARENT_COLUMNS.filter(([column]) => columns.includes(column) && !(table === "messages" && column === "stream_id"))
    .map(([column, parent]) => ({ column, parent }));
  return refs.length ? { kind: "columns", refs } : null;
}

/**
 * Tables keyed by a user that hold what others in the organization already see; every other
 * user-keyed table is that user's private data, exported only with their consent.
 */
const SHARED_USER_TABLES: ReadonlySet<string> = new Set([
  "users",
  "subscriptions",
  "custom_profile_values",
  "user_group_members",
  "user_messages",
]);

export function isPrivateUserTable(table: string, columns: readonly string[]): boolean {
  return columns.includes("user_id") && !SHARED_USER_TABLES.has(table);
}

/** Tables about this server rather than the organization's data: another server makes its own. */
export const UNEXPORTED_TABLES: ReadonlySet<string> = new Set([
  "realm_exports",
  "push_uuids",
  "web_sessions",
  "outbox_jobs",
  // Fetched pages, shared by every organization here; refetched when a message needs them.
  "link_previews",
  // Thumbnails are files this server made; the archive carries only the originals.
  "image_attachments",
  // SQLite's word index and FTS5's own tables behind it: triggers rebuild it as messages load.
  "message_search",
  "message_search_config",
  "message_search_data",
  "message_search_docsize",
  "message_search_idx",
]);

/**
 * Tables in an order that loads every referenced table before the tables referring to it.
 * Self-references don't constrain the order. A cycle between tables is an error.
 */
export function loadOrder(tables: readonly string[], references: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const order: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (table: string, path: string[]) => {
    const s = state.get(table);
    if (s === "done") return;
    if (s === "visiting") throw new Error(`tables refer to each other in a cycle: ${[...path, table].join(" -> ")}`);
    state.set(table, "visiting");
    for (const ref of [...(references.get(table) ?? [])].sort()) {
      if (ref !== table && tables.includes(ref)) visit(ref, [...path, table]);
    }
    state.set(table, "done");
    order.push(table);
  };
  for (const t of [...tables].sort()) visit(t, []);
  return order;
}

export function isExportType(value: number): value is ExportTypeValue {
  return value === ExportType.PUBLIC || value === ExportType.FULL_WITH_CONSENT;
}
