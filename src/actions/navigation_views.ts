/** A user's navigation views: configuring built-in ones and adding custom ones. */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest, notFound } from "../http/errors.js";
import { checkNewViewName, checkViewRename, type ApiNavigationView } from "../domain/navigation_views.js";
import {
  deleteNavigationView,
  getNavigationView,
  insertNavigationView,
  listNavigationViews,
  navigationViewNameTaken,
  updateNavigationView,
  type NavigationViewRow,
} from "../store/navigation_views.js";
import type { Executor } from "../store/schema.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

const alreadyExists = () => badRequest("Navigation view already exists.");

function formatView(row: NavigationViewRow): ApiNavigationView {
  return { fragment: row.fragment, is_pinned: row.is_pinned === 1, name: row.name };
}

function sendViewEvent(events: PendingEvents, caller: Caller, event: Record<string, unknown>): void {
  events.send({ realmId: caller.realm.id, event: { type: "navigation_view", ...event }, userIds: [caller.user.id] });
}

/** GET /navigation_views and the register state. */
export async function getNavigationViews(db: Executor, userId: number): Promise<ApiNavigationView[]> {
  return (await listNavigationViews(db, userId)).map(formatView);
}

export async function doAddNavigationView(app: AppContext, caller: Caller, fragment: string, isPinned: boolean, name: string | undefined) {
  checkNewViewName(fragment, name);
  await runAction(app, async (tx, events) => {
    if (await getNavigationView(tx, caller.user.id, fragment)) throw alreadyExists();
    if (name !== undefined && (await navigationViewNameTaken(tx, caller.user.id, name))) throw alreadyExists();
    const row = await insertNavigationView(tx, caller.user.id, fragment, isPinned, name ?? null);
    sendViewEvent(events, caller, { op: "add", navigation_view: formatView(row) });
  });
}

async function ownView(tx: Tx, caller: Caller, fragment: string): Promise<NavigationViewRow> {
  const row = await getNavigationView(tx, caller.user.id, fragment);
  if (!row) throw notFound("Navigation view does not exist.");
  return row;
}

export async function doUpdateNavigationView(
  app: AppContext,
  caller: Caller,
  fragment: string,
  changes: { isPinned: boolean | undefined; name: string | undefined },
) {
  checkViewRename(fragment, changes.name);
  await runAction(app, async (tx, events) => {
    if (changes.name !== undefined && (await navigationViewNameTaken(tx, caller.user.id, changes.name))) throw alreadyExists();
    const row = await ownView(tx, caller, fragment);
    const data: { name?: string; is_pinned?: boolean } = {};
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.isPinned !== undefined) data.is_pinned = changes.isPinned;
    await updateNavigationView(tx, row.id, {
      name: changes.name,
      is_pinned: changes.isPinned === undefined ? undefined : changes.isPinned ? 1 : 0,
    });
    sendViewEvent(events, caller, { op: "update", fragment, data });
  });
}

export async function doRemoveNavigationView(app: AppContext, caller: Caller, fragment: string) {
  await runAction(app, async (tx, events) => {
    const row = await ownView(tx, caller, fragment);
    await deleteNavigationView(tx, row.id);
    sendViewEvent(events, caller, { op: "remove", fragment });
  });
}
