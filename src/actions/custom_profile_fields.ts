/** Custom profile fields: the organization's list, creating fields, and setting a user's values. */
import type { AppContext } from "../context.js";
import { unlessTaken } from "../store/unique.js";
import type { Caller } from "../http/auth.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { badRequest } from "../http/errors.js";
import { activeRealmUserIds } from "../store/users.js";
import { userIdsWhoCanAccess } from "../store/user_access.js";
import { isDeepStrictEqual } from "node:util";
import {
  countFieldsInProfileSummary,
  deleteCustomProfileField,
  deleteProfileValuesNotIn,
  updateCustomProfileField,
  type CustomProfileFieldChanges,
  type CustomProfileFieldRow,
  customProfileFieldNameTaken,
  deleteProfileValue,
  getCustomProfileField,
  getProfileValue,
  insertCustomProfileField,
  listCustomProfileFields,
  setProfileValue,
} from "../store/custom_profile_fields.js";
import {
  CUSTOM_FIELD_LIMITS,
  DEFAULT_EXTERNAL_ACCOUNTS,
  FIELD_TYPE,
  checkFieldDefinition,
  checkProfileFieldValue,
  isDefaultExternalField,
  isEmptyProfileValue,
  isRenderedFieldType,
  type FieldData,
  type UserFieldFacts,
} from "../domain/custom_profile_fields.js";
import { isAdmin } from "../domain/roles.js";
import { formatCustomProfileField } from "../format/custom_profile_fields.js";
import { renderMarkdown } from "../markdown/render.js";
import { renderContextFor } from "../markdown/context.js";

export async function listCustomProfileFieldsForApi(app: AppContext, caller: Caller) {
  return (await listCustomProfileFields(app.db, caller.realm.id)).map(formatCustomProfileField);
}

/** Every field change sends the whole list to every active user. */
async function sendFieldList(tx: Tx, events: PendingEvents, realm: Realm): Promise<void> {
  events.send({
    realmId: realm.id,
    event: { type: "custom_profile_fields", fields: (await listCustomProfileFields(tx, realm.id)).map(formatCustomProfileField) },
    userIds: await activeRealmUserIds(tx, realm.id),
  });
}

async function checkProfileSummaryRoom(tx: Tx, realm: Realm, exceptId?: number): Promise<void> {
  if ((await countFieldsInProfileSummary(tx, realm.id, exceptId)) >= CUSTOM_FIELD_LIMITS.maxInProfileSummary) {
    throw badRequest(`Only ${CUSTOM_FIELD_LIMITS.maxInProfileSummary} custom profile fields can be displayed in the profile summary.`);
  }
}

const fieldNotFound = (id: number) => badRequest(`Field id ${id} not found.`);
const labelTaken = () => badRequest("A field with that label already exists.");

export interface NewCustomProfileField {
  name: string;
  hint: string;
  fieldType: number;
  fieldData: FieldData;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** POST /realm/profile_fields; returns the new field's id. */
export async function doCreateCustomProfileField(app: AppContext, caller: Caller, input: NewCustomProfileField): Promise<number> {
  const realm = caller.realm;
  return runAction(app, async (tx, events) => {
    if (input.displayInProfileSummary) await checkProfileSummaryRoom(tx, realm);
    checkFieldDefinition({
      name: input.name,
      hint: input.hint,
      type: input.fieldType,
      data: input.fieldData,
      displayInProfileSummary: input.displayInProfileSummary,
    });
    const preset = isDefaultExternalField(input.fieldType, input.fieldData)
      ? DEFAULT_EXTERNAL_ACCOUNTS[input.fieldData.subtype as string]
      : undefined;
    const name = preset?.name ?? input.name;
    if (await customProfileFieldNameTaken(tx, realm.id, name)) throw labelTaken();
    const keepsData = input.fieldType === FIELD_TYPE.SELECT || input.fieldType === FIELD_TYPE.EXTERNAL_ACCOUNT;
    const id = await unlessTaken(
      insertCustomProfileField(tx, {
        realm_id: realm.id,
        name,
        hint: preset?.hint ?? input.hint,
        field_type: input.fieldType,
        field_data: preset ? JSON.stringify({ subtype: input.fieldData.subtype }) : keepsData ? JSON.stringify(input.fieldData) : "",
        display_in_profile_summary: input.displayInProfileSummary ? 1 : 0,
        required: input.required ? 1 : 0,
        editable_by_user: input.editableByUser ? 1 : 0,
      }),
      labelTaken,
    );
    await sendFieldList(tx, events, realm);
    return id;
  });
}

export interface CustomProfileFieldUpdate {
  name?: string;
  hint?: string;
  fieldData?: FieldData;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

const storedFieldData = (field: CustomProfileFieldRow): FieldData => (field.field_data ? (JSON.parse(field.field_data) as FieldData) : {});

/** PATCH /realm/profile_fields/{id}: what is not sent stays as it is; checks in Zulip's order. */
export async function doUpdateCustomProfileField(app: AppContext, caller: Caller, id: number, input: CustomProfileFieldUpdate): Promise<void> {
  const realm = caller.realm;
  await runAction(app, async (tx, events) => {
    const field = await getCustomProfileField(tx, realm.id, id);
    if (!field) throw fieldNotFound(id);
    if (input.displayInProfileSummary) await checkProfileSummaryRoom(tx, realm, field.id);
    const existingData = storedFieldData(field);
    // A ready-made external account keeps Zulip's label, hint and data; only its flags change.
    const changesPreset =
      (input.name !== undefined && input.name !== field.name) ||
      (input.hint !== undefined && input.hint !== field.hint) ||
      (input.fieldData !== undefined && !isDeepStrictEqual(input.fieldData, existingData));
    if (isDefaultExternalField(field.field_type, existingData) && changesPreset) {
      throw badRequest("Default custom field cannot be updated.");
    }
    checkFieldDefinition({
      name: input.name ?? field.name,
      hint: input.hint ?? field.hint,
      type: field.field_type,
      data: input.fieldData ?? existingData,
      displayInProfileSummary: input.displayInProfileSummary ?? field.display_in_profile_summary === 1,
    });
    if (input.name !== undefined && (await customProfileFieldNameTaken(tx, realm.id, input.name, field.id))) throw labelTaken();
    const changes: CustomProfileFieldChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.hint !== undefined) changes.hint = input.hint;
    if (input.required !== undefined) changes.required = input.required ? 1 : 0;
    if (input.editableByUser !== undefined) changes.editable_by_user = input.editableByUser ? 1 : 0;
    if (input.displayInProfileSummary !== undefined) changes.display_in_profile_summary = input.displayInProfileSummary ? 1 : 0;
    if (field.field_type === FIELD_TYPE.SELECT || field.field_type === FIELD_TYPE.EXTERNAL_ACCOUNT) {
      if (input.fieldData !== undefined && field.field_type === FIELD_TYPE.SELECT) {
        await deleteProfileValuesNotIn(tx, field.id, Object.keys(input.fieldData));
      }
      if (input.fieldData !== undefined || field.field_data === "") changes.field_data = JSON.stringify(input.fieldData ?? {});
    }
    await unlessTaken(updateCustomProfileField(tx, field.id, changes), labelTaken);
    await sendFieldList(tx, events, realm);
  });
}

/** PATCH /realm/profile_fields: `order` must name every field; ids of no field are ignored. */
export async function doReorderCustomProfileFields(app: AppContext, caller: Caller, order: number[]): Promise<void> {
  const realm = caller.realm;
  await runAction(app, async (tx, events) => {
    const position = new Map(order.map((id, i) => [id, i]));
    const fields = await listCustomProfileFields(tx, realm.id);
    if (fields.some((f) => !position.has(f.id))) throw badRequest("Invalid order mapping.");
    for (const f of fields) await updateCustomProfileField(tx, f.id, { order: position.get(f.id)! });
    await sendFieldList(tx, events, realm);
  });
}

/** DELETE /realm/profile_fields/{id}: the field goes with every user's value for it. */
export async function doDeleteCustomProfileField(app: AppContext, caller: Caller, id: number): Promise<void> {
  const realm = caller.realm;
  await runAction(app, async (tx, events) => {
    const field = await getCustomProfileField(tx, realm.id, id);
    if (!field) throw fieldNotFound(id);
    await deleteCustomProfileField(tx, field.id);
    await sendFieldList(tx, events, realm);
  });
}

export interface ProfileDataEntry {
  id: number;
  value: string | number[] | null;
}

/** Active users and bots of the organization, for checking USER field values. */
async function userFieldFacts(tx: Tx, realm: Realm, ids: number[]): Promise<Map<number, UserFieldFacts>> {
  if (!ids.length) return new Map();
  const rows = await tx
    .selectFrom("users")
    .select(["id", "is_active", "is_bot"])
    .where("realm_id", "=", realm.id)
    .where("id", "in", ids)
    .where("is_system_bot", "=", 0)
    .execute();
  return new Map(rows.map((r) => [r.id, { isActive: r.is_active === 1, isBot: r.is_bot === 1 }]));
}

/**
 * Sets or clears `target`'s values as `actor` asks, in Zulip's order: empty values are removed
 * first, then the others are all checked and stored. Each real change is announced to the
 * users who can see `target`.
 */
export async function updateProfileDataInTx(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  actor: UserRow,
  target: UserRow,
  entries: ProfileDataEntry[],
): Promise<void> {
  const fieldFor = async (id: number) => {
    const field = await getCustomProfileField(tx, realm.id, id);
    if (!field) throw fieldNotFound(id);
    if (!isAdmin(actor.role) && field.editable_by_user === 0) {
      throw badRequest("You are not allowed to change this field. Contact an administrator to update it.");
    }
    return field;
  };
  const announce = async (data: Record<string, unknown>) =>
    events.send({
      realmId: realm.id,
      event: { type: "realm_user", op: "update", person: { user_id: target.id, custom_profile_field: data } },
      userIds: await userIdsWhoCanAccess(tx, realm, target),
    });

  for (const entry of entries.filter((e) => isEmptyProfileValue(e.value))) {
    await fieldFor(entry.id);
    if (!(await getProfileValue(tx, target.id, entry.id))) continue;
    await deleteProfileValue(tx, target.id, entry.id);
    await announce({ id: entry.id, value: null });
  }
  const toSet = entries.filter((e) => !isEmptyProfileValue(e.value));
  const userIds = toSet.flatMap((e) => (Array.isArray(e.value) ? e.value.filter(Number.isInteger) : []));
  const users = await userFieldFacts(tx, realm, userIds);
  const checked = [];
  for (const entry of toSet) {
    const field = await fieldFor(entry.id);
    checked.push({ field, value: checkProfileFieldValue({ name: field.name, type: field.field_type, fieldData: field.field_data }, entry.value, users) });
  }
  for (const { field, value } of checked) {
    const existing = await getProfileValue(tx, target.id, field.id);
    if (existing && existing.value === value) continue;
    const rendered = isRenderedFieldType(field.field_type)
      ? renderMarkdown(value, await renderContextFor(app, realm, null, tx)).html
      : null;
    await setProfileValue(tx, target.id, field.id, value, rendered);
    await announce(rendered ? { id: field.id, value, rendered_value: rendered } : { id: field.id, value });
  }
}
