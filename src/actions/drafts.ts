import { accessStreamById } from "./streams.js";
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { badRequest, notFound } from "../http/errors.js";
import { userSetting } from "../format/users.js";
import {
  MAX_DRAFTS_IN_REGISTER_RESPONSE,
  directMessageKey,
  draftContent,
  draftTimestamp,
  draftTopic,
  formatDraft,
  type ApiDraft,
} from "../domain/drafts.js";
import {
  deleteDraft,
  findDraftRecipients,
  getOwnDraft,
  insertDraft,
  latestDrafts,
  listDrafts,
  updateDraft,
  type DraftFields,
} from "../store/drafts.js";
import type { Executor } from "../store/schema.js";
import type { UserRow } from "../store/users.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";

/** A draft as clients send it (already checked for shape). */
export interface DraftInput {
  type: "" | "stream" | "private";
  to: number[];
  topic: string;
  content: string;
  timestamp?: number | null;
}

/** Drafts are only kept on the server for users who synchronize them. */
export function checkDraftsSynchronized(user: UserRow): void {
  if (userSetting(user, "enable_drafts_synchronization") === false) {
    throw badRequest("User has disabled synchronizing drafts.");
  }
}

const draftNotFound = () => notFound("Draft does not exist");

/** Checks a draft against the organization, in Zulip's order, and returns what is stored. */
async function draftFields(app: AppContext, db: Executor, caller: Caller, input: DraftInput, now: number): Promise<DraftFields> {
  const content = draftContent(input.content);
  const last_edit_time = draftTimestamp(input.timestamp, now);
  const fields: DraftFields = { stream_id: null, dm_key: null, topic: "", content, last_edit_time };
  if (input.type === "stream") {
    fields.topic = draftTopic(input.topic);
    if (input.to.length !== 1) throw badRequest("Must specify exactly 1 channel ID for channel messages");
    const { stream } = await accessStreamById(app, db, caller.user, input.to[0]);
    fields.stream_id = stream.id;
  } else if (input.type === "private" && input.to.length) {
    const ids = [...new Set(input.to)].sort((a, b) => a - b);
    const users = await findDraftRecipients(db, caller.realm.id, ids);
    const missing = ids.find((id) => !users.has(id));
    if (missing !== undefined) throw badRequest(`Invalid user ID ${missing}`);
    const gone = ids.map((id) => users.get(id)!).find((u) => u.is_active !== 1);
    if (gone) throw badRequest(`'${gone.email}' is no longer using Zulip.`);
    fields.dm_key = directMessageKey([...ids, caller.user.id]);
  }
  return fields;
}

function sendDraftEvent(events: PendingEvents, caller: Caller, event: Record<string, unknown>): void {
  events.send({ realmId: caller.realm.id, event: { type: "drafts", ...event }, userIds: [caller.user.id] });
}

export async function getDrafts(app: AppContext, caller: Caller): Promise<ApiDraft[]> {
  const rows = await listDrafts(app.db, caller.user.id);
  return rows.map((d) => formatDraft(d, caller.user.id));
}

/** Creates every draft or none; returns their ids in the order given. */
export async function doCreateDrafts(app: AppContext, caller: Caller, drafts: DraftInput[]): Promise<number[]> {
  return runAction(app, async (tx, events) => {
    const now = app.clock.now();
    const fields: DraftFields[] = [];
    for (const draft of drafts) fields.push(await draftFields(app, tx, caller, draft, now));
    const created = [];
    for (const f of fields) created.push(await insertDraft(tx, caller.user.id, f));
    sendDraftEvent(events, caller, { op: "add", drafts: created.map((d) => formatDraft(d, caller.user.id)) });
    return created.map((d) => d.id);
  });
}

async function ownDraftOrFail(tx: Tx, caller: Caller, draftId: number) {
  const draft = await getOwnDraft(tx, caller.user.id, draftId);
  if (!draft) throw draftNotFound();
  return draft;
}

export async function doEditDraft(app: AppContext, caller: Caller, draftId: number, draft: DraftInput): Promise<void> {
  await runAction(app, async (tx, events) => {
    await ownDraftOrFail(tx, caller, draftId);
    const updated = await updateDraft(tx, draftId, await draftFields(app, tx, caller, draft, app.clock.now()));
    sendDraftEvent(events, caller, { op: "update", draft: formatDraft(updated, caller.user.id) });
  });
}

export async function doDeleteDraft(app: AppContext, caller: Caller, draftId: number): Promise<void> {
  await runAction(app, async (tx, events) => {
    await ownDraftOrFail(tx, caller, draftId);
    await deleteDraft(tx, draftId);
    sendDraftEvent(events, caller, { op: "remove", draft_id: draftId });
  });
}

/** The `drafts` section of POST /register: the most recently edited drafts first. */
export async function draftsRegisterState(db: Executor, userId: number): Promise<{ drafts: ApiDraft[] }> {
  const rows = await latestDrafts(db, userId, MAX_DRAFTS_IN_REGISTER_RESPONSE);
  return { drafts: rows.map((d) => formatDraft(d, userId)) };
}
