/**
 * Linkifiers and code playgrounds: organization settings administrators manage. Every change
 * sends the organization's whole new list to all its active users.
 */
import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import type { Caller } from "../http/auth.js";
import { badRequest, validationFailure } from "../http/errors.js";
import {
  ALL_FIELDS,
  DUPLICATE_LINKIFIER,
  DUPLICATE_PLAYGROUND,
  hasErrors,
  linkifierErrors,
  playgroundErrors,
  validPygmentsLanguageCharacters,
} from "../domain/linkifiers.js";
import {
  deleteLinkifier,
  getLinkifier,
  insertLinkifier,
  linkifierPatternTaken,
  listLinkifiers,
  setLinkifierOrder,
  updateLinkifier,
} from "../store/linkifiers.js";
import {
  deletePlayground,
  getPlayground,
  insertPlayground,
  listPlaygrounds,
  playgroundExists,
} from "../store/playgrounds.js";
import { activeRealmUserIds } from "../store/users.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

const linkifierNotFound = () => badRequest("Linkifier not found.");

async function notifyLinkifiers(tx: Tx, events: PendingEvents, realmId: number): Promise<void> {
  events.send({
    realmId,
    event: { type: "realm_linkifiers", realm_linkifiers: await listLinkifiers(tx, realmId) },
    userIds: await activeRealmUserIds(tx, realmId),
  });
}

async function notifyPlaygrounds(tx: Tx, events: PendingEvents, realmId: number): Promise<void> {
  events.send({
    realmId,
    event: { type: "realm_playgrounds", realm_playgrounds: await listPlaygrounds(tx, realmId) },
    userIds: await activeRealmUserIds(tx, realmId),
  });
}

/** Refuses an invalid linkifier; `exceptId` is the linkifier being replaced, if any. */
async function checkLinkifier(tx: Tx, realmId: number, pattern: string, urlTemplate: string, exceptId?: number): Promise<void> {
  const errors = linkifierErrors(pattern, urlTemplate);
  if (!errors.pattern && (await linkifierPatternTaken(tx, realmId, pattern, exceptId))) {
    (errors[ALL_FIELDS] ??= []).push(DUPLICATE_LINKIFIER);
  }
  if (hasErrors(errors)) throw validationFailure(errors);
}

const duplicateLinkifier = () => validationFailure({ [ALL_FIELDS]: [DUPLICATE_LINKIFIER] });

export async function doAddLinkifier(app: AppContext, caller: Caller, pattern: string, urlTemplate: string): Promise<number> {
  const realmId = caller.realm.id;
  [pattern, urlTemplate] = [pattern.trim(), urlTemplate.trim()];
  return runAction(app, async (tx, events) => {
    await checkLinkifier(tx, realmId, pattern, urlTemplate);
    const id = await unlessTaken(insertLinkifier(tx, realmId, pattern, urlTemplate), duplicateLinkifier);
    await notifyLinkifiers(tx, events, realmId);
    return id;
  });
}

/** Replaces a linkifier's pattern and URL template; its place in the order stays. */
export async function doUpdateLinkifier(app: AppContext, caller: Caller, id: number, pattern: string, urlTemplate: string): Promise<void> {
  const realmId = caller.realm.id;
  [pattern, urlTemplate] = [pattern.trim(), urlTemplate.trim()];
  await runAction(app, async (tx, events) => {
    if (!(await getLinkifier(tx, realmId, id))) throw linkifierNotFound();
    await checkLinkifier(tx, realmId, pattern, urlTemplate, id);
    await unlessTaken(updateLinkifier(tx, id, pattern, urlTemplate), duplicateLinkifier);
    await notifyLinkifiers(tx, events, realmId);
  });
}

export async function doRemoveLinkifier(app: AppContext, caller: Caller, id: number): Promise<void> {
  const realmId = caller.realm.id;
  await runAction(app, async (tx, events) => {
    if (!(await getLinkifier(tx, realmId, id))) throw linkifierNotFound();
    await deleteLinkifier(tx, id);
    await notifyLinkifiers(tx, events, realmId);
  });
}

/** `orderedIds` must list every linkifier of the organization exactly once. */
export async function doReorderLinkifiers(app: AppContext, caller: Caller, orderedIds: number[]): Promise<void> {
  const realmId = caller.realm.id;
  const wanted = new Set(orderedIds);
  if (wanted.size < orderedIds.length) throw badRequest("The ordered list must not contain duplicated linkifiers");
  await runAction(app, async (tx, events) => {
    const existing = await listLinkifiers(tx, realmId);
    if (existing.length !== wanted.size || existing.some((l) => !wanted.has(l.id))) {
      throw badRequest("The ordered list must enumerate all existing linkifiers exactly once");
    }
    if (existing.length === 0) return;
    await setLinkifierOrder(tx, orderedIds);
    await notifyLinkifiers(tx, events, realmId);
  });
}

export interface NewPlayground {
  name: string;
  pygments_language: string;
  url_template: string;
}

/** Adds a code playground. The language's length was checked with the other parameters. */
export async function doAddPlayground(app: AppContext, caller: Caller, raw: NewPlayground): Promise<number> {
  const realmId = caller.realm.id;
  if (!validPygmentsLanguageCharacters(raw.pygments_language)) throw badRequest("Invalid characters in pygments language");
  const p = { name: raw.name.trim(), pygments_language: raw.pygments_language.trim(), url_template: raw.url_template.trim() };
  return runAction(app, async (tx, events) => {
    const errors = playgroundErrors(p);
    if (!errors.name && !errors.pygments_language && (await playgroundExists(tx, realmId, p.pygments_language, p.name))) {
      (errors[ALL_FIELDS] ??= []).push(DUPLICATE_PLAYGROUND);
    }
    if (hasErrors(errors)) throw validationFailure(errors);
    const id = await insertPlayground(tx, realmId, p);
    await notifyPlaygrounds(tx, events, realmId);
    return id;
  });
}

export async function doRemovePlayground(app: AppContext, caller: Caller, id: number): Promise<void> {
  const realmId = caller.realm.id;
  await runAction(app, async (tx, events) => {
    if (!(await getPlayground(tx, realmId, id))) throw badRequest("Invalid playground");
    await deletePlayground(tx, id);
    await notifyPlaygrounds(tx, events, realmId);
  });
}
