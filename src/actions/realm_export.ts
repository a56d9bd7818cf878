/**
 * Organization data exports through the API (Zulip's /export/realm): requested by an
 * administrator, written in the background, announced to administrators with `realm_export`
 * events as they start, finish or fail.
 */
import fs from "node:fs";
import path from "node:path";
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest } from "../http/errors.js";
import { runAction, type PendingEvents } from "./run.js";
import { startBackground } from "../outbound/background.js";
import { writeRealmExport } from "../workers/realm_export.js";
import {
  countRealmExportsSince,
  getRealmExport,
  insertRealmExport,
  listRealmExports,
  updateRealmExport,
  type RealmExportRow,
} from "../store/realm_exports.js";
import { activeRealmUsers } from "../store/users.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import { emailVisibility, userSetting } from "../format/users.js";
import { isAdmin, Role } from "../domain/roles.js";
import {
  deleteRefusal,
  EXPORTS_PER_WEEK,
  ExportStatus,
  exportRefusal,
  MAX_EXPORTED_MESSAGES,
  serializeExport,
  WEEK_SECS,
  type ExportTypeValue,
} from "../domain/realm_export.js";

/** The archive's public address: unguessable, like Zulip's export URLs. */
function exportUrl(app: AppContext, row: RealmExportRow): string | null {
  return row.path ? `${app.config.externalUrl}/user_avatars/${row.path.split(path.sep).join("/")}` : null;
}

async function serializedExports(app: AppContext, db: Executor, realmId: number) {
  return (await listRealmExports(db, realmId)).map((row) => serializeExport(row, exportUrl(app, row)));
}

/** `realm_export` (the whole list) goes to the organization's human administrators. */
async function announceExports(app: AppContext, db: Executor, events: PendingEvents, realmId: number): Promise<void> {
  const admins = (await activeRealmUsers(db, realmId)).filter((u) => isAdmin(u.role) && u.is_bot === 0).map((u) => u.id);
  events.send({ realmId, event: { type: "realm_export", exports: await serializedExports(app, db, realmId) }, userIds: admins });
}

async function messageCount(db: Executor, realmId: number): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("realm_id", "=", realmId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function doExportRealm(app: AppContext, caller: Caller, type: ExportTypeValue): Promise<number> {
  const { realm } = caller;
  const id = await runAction(app, async (tx, events) => {
    const now = app.clock.now();
    if ((await countRealmExportsSince(tx, realm.id, now - WEEK_SECS)) >= EXPORTS_PER_WEEK) {
      throw badRequest("Exceeded rate limit.");
    }
    const support = app.config.emailFrom;
    if ((await messageCount(tx, realm.id)) > MAX_EXPORTED_MESSAGES) {
      throw badRequest(`Please request a manual export from ${support}.`);
    }
    const owners = (await activeRealmUsers(tx, realm.id))
      .filter((u) => u.role === Role.OWNER && u.is_bot === 0)
      .map((u) => ({ emailAddressVisibility: emailVisibility(u), allowPrivateDataExport: userSetting(u, "allow_private_data_export") === true }));
    const refusal = exportRefusal(type, owners, support);
    if (refusal) throw badRequest(refusal);
    const id = await insertRealmExport(tx, {
      realm_id: realm.id,
      acting_user_id: caller.user.id,
      type,
      status: ExportStatus.REQUESTED,
      date_requested: now,
    });
    await announceExports(app, tx, events, realm.id);
    return id;
  });
  startBackground(app, "realm export", () => runExport(app, realm, id, type));
  return id;
}

async function runExport(app: AppContext, realm: Realm, id: number, type: number): Promise<void> {
  await updateRealmExport(app.db, id, { status: ExportStatus.STARTED });
  try {
    const archive = await writeRealmExport(app, realm, id, type);
    await runAction(app, async (tx, events) => {
      await updateRealmExport(tx, id, { status: ExportStatus.SUCCEEDED, date_succeeded: app.clock.now(), path: archive });
      await announceExports(app, tx, events, realm.id);
    });
  } catch (err) {
    app.log.error({ err, realm_export_id: id }, "realm export failed");
    await runAction(app, async (tx, events) => {
      await updateRealmExport(tx, id, { status: ExportStatus.FAILED, date_failed: app.clock.now() });
      await announceExports(app, tx, events, realm.id);
    });
  }
}

export async function getRealmExports(app: AppContext, caller: Caller) {
  return serializedExports(app, app.db, caller.realm.id);
}

/** Deletes the archive; the record stays, with its deletion time. */
export async function doDeleteRealmExport(app: AppContext, caller: Caller, exportId: number): Promise<void> {
  const archive = await runAction(app, async (tx, events) => {
    const row = await getRealmExport(tx, caller.realm.id, exportId);
    if (!row) throw badRequest("Invalid data export ID");
    const refusal = deleteRefusal(row.status);
    if (refusal) throw badRequest(refusal);
    await updateRealmExport(tx, row.id, { status: ExportStatus.DELETED, date_deleted: app.clock.now() });
    await announceExports(app, tx, events, caller.realm.id);
    return row.path;
  });
  if (archive) fs.rmSync(path.join(app.config.dataDir, path.dirname(archive)), { recursive: true, force: true });
}

/** Whether each active person (bots excluded) lets administrators export their private data. */
export async function getExportConsents(app: AppContext, caller: Caller) {
  return (await activeRealmUsers(app.db, caller.realm.id))
    .filter((u) => u.is_bot === 0)
    .map((u) => ({ user_id: u.id, consented: userSetting(u, "allow_private_data_export") === true }));
}

/** The archive a download URL names, if it is a finished export of this server. */
export async function findExportArchive(app: AppContext, relPath: string): Promise<string | null> {
  const [first, realmIdText] = relPath.split("/");
  const realmId = Number(realmIdText);
  if (first !== "exports" || !Number.isSafeInteger(realmId)) return null;
  const rows = await listRealmExports(app.db, realmId);
  const row = rows.find((r) => r.status === ExportStatus.SUCCEEDED && r.path?.split(path.sep).join("/") === relPath);
  return row?.path ? path.join(app.config.dataDir, row.path) : null;
}
