/**
 * Custom profile fields: the field types, what a field definition must look like, and how each
 * type checks a user's value. Lookups (other users, existing fields) are the caller's.
 */
import { badRequest } from "../http/errors.js";

export const FIELD_TYPE = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** POST /register's `custom_profile_field_types`. */
export const FIELD_TYPES: Record<string, { id: number; name: string }> = {
  SHORT_TEXT: { id: FIELD_TYPE.SHORT_TEXT, name: "Text (short)" },
  LONG_TEXT: { id: FIELD_TYPE.LONG_TEXT, name: "Text (long)" },
  SELECT: { id: FIELD_TYPE.SELECT, name: "List of options" },
  DATE: { id: FIELD_TYPE.DATE, name: "Date" },
  URL: { id: FIELD_TYPE.URL, name: "Link" },
  USER: { id: FIELD_TYPE.USER, name: "Users" },
  EXTERNAL_ACCOUNT: { id: FIELD_TYPE.EXTERNAL_ACCOUNT, name: "External account" },
  PRONOUNS: { id: FIELD_TYPE.PRONOUNS, name: "Pronouns" },
};

export const CUSTOM_FIELD_LIMITS = { nameMaxLength: 40, hintMaxLength: 80, maxInProfileSummary: 2 } as const;

/** Types whose values are Markdown, shown with a rendered_value. */
export const isRenderedFieldType = (type: number) => type === FIELD_TYPE.SHORT_TEXT || type === FIELD_TYPE.LONG_TEXT;

/** The external accounts Zulip offers ready-made: their label and hint come from here. */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; url_pattern: string; name: string; hint: string }> = {
  twitter: { text: "Twitter", url_pattern: "https://twitter.com/%(username)s", name: "Twitter username", hint: "" },
  github: { text: "GitHub", url_pattern: "https://github.com/%(username)s", name: "GitHub username", hint: "" },
};

export type FieldData = Record<string, unknown>;

const isString = (v: unknown): v is string => typeof v === "string";
const length = (s: string) => [...s].length;

function checkCapped(name: string, value: unknown, max: number): string {
  if (!isString(value)) throw badRequest(`${name} is not a string`);
  if (length(value) > max) throw badRequest(`${name} is too long (limit: ${max} characters)`);
  return value;
}

/** Django's URLValidator, for the schemes and host shapes Zulip's users type. */
const URL_RE = /^(?:https?|ftps?):\/\/(?:[^\s:@/]+(?::[^\s:@/]*)?@)?(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|(?:[a-z\u00a1-\uffff0-9](?:[a-z\u00a1-\uffff0-9-]{0,61}[a-z\u00a1-\uffff0-9])?\.)+[a-z\u00a1-\uffff-]{2,63}\.?)(?::\d{1,5})?(?:[/?#]\S*)?$/i;

export function isUrl(value: string): boolean {
  return URL_RE.test(value);
}

function checkSelectFieldData(data: FieldData): void {
  if (Object.keys(data).length < 1) throw badRequest("Field must have at least one choice.");
  const texts = new Set<unknown>();
  for (const [key, choice] of Object.entries(data)) {
    if (!key.trim()) throw badRequest("'value' cannot be blank.");
    if (!choice || typeof choice !== "object" || Array.isArray(choice)) throw badRequest("field_data is not a dict");
    const entry = choice as Record<string, unknown>;
    for (const k of ["text", "order"]) {
      if (!(k in entry)) throw badRequest(`${k} key is missing from field_data`);
      if (!isString(entry[k])) throw badRequest(`field_data["${k}"] is not a string`);
      if (!(entry[k] as string).trim()) throw badRequest(`field_data["${k}"] cannot be blank.`);
    }
    const extra = Object.keys(entry).filter((k) => k !== "text" && k !== "order");
    if (extra.length) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
    texts.add(entry.text);
  }
  if (texts.size !== Object.keys(data).length) throw badRequest("Field must not have duplicate choices.");
}

function checkExternalAccountFieldData(data: FieldData): void {
  if (!("subtype" in data)) throw badRequest("subtype key is missing from field_data");
  if (!isString(data.subtype)) throw badRequest('field_data["subtype"] is not a string');
  if (!data.subtype.trim()) throw badRequest('field_data["subtype"] cannot be blank.');
  if ("url_pattern" in data) {
    const pattern = data.url_pattern;
    if (!isString(pattern)) throw badRequest('field_data["url_pattern"] is not a string');
    if (pattern.split("%(username)s").length !== 2) throw badRequest("URL pattern must contain '%(username)s'.");
    if (!isUrl(pattern.replace("%(username)s", "username"))) throw badRequest('field_data["url_pattern"] is not a URL');
  }
  const extra = Object.keys(data).filter((k) => k !== "subtype" && k !== "url_pattern");
  if (extra.length) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
  if (!(data.subtype in DEFAULT_EXTERNAL_ACCOUNTS)) {
    if (data.subtype !== "custom") throw badRequest("Invalid external account type");
    if (!("url_pattern" in data)) throw badRequest("Custom external account must define URL pattern");
  }
}

/** A ready-made external account: its label and hint come from Zulip, not the request. */
export function isDefaultExternalField(type: number, data: FieldData): boolean {
  return type === FIELD_TYPE.EXTERNAL_ACCOUNT && data.subtype !== "custom";
}

export interface FieldDefinition {
  name: string;
  hint: string;
  type: number;
  data: FieldData;
  displayInProfileSummary: boolean;
}

/** Zulip's validate_custom_profile_field, checks in its order. */
export function checkFieldDefinition(field: FieldDefinition): void {
  if (field.type === FIELD_TYPE.SELECT) checkSelectFieldData(field.data);
  else if (field.type === FIELD_TYPE.EXTERNAL_ACCOUNT) checkExternalAccountFieldData(field.data);
  if (!isDefaultExternalField(field.type, field.data)) {
    if (!field.name.trim()) throw badRequest("Label cannot be blank.");
    checkCapped("hint", field.hint, CUSTOM_FIELD_LIMITS.hintMaxLength);
    checkCapped("name", field.name, CUSTOM_FIELD_LIMITS.nameMaxLength);
  }
  if (!Object.values(FIELD_TYPE).includes(field.type as never)) throw badRequest("Invalid field type.");
  if (field.displayInProfileSummary && (field.type === FIELD_TYPE.LONG_TEXT || field.type === FIELD_TYPE.USER)) {
    throw badRequest("Field type not supported for display in profile summary.");
  }
}

export interface ProfileFieldFacts {
  name: string;
  type: number;
  /** The field's stored field_data (JSON text). */
  fieldData: string;
}

/** What a USER field value may name: each user, if in the organization. */
export interface UserFieldFacts {
  isActive: boolean;
  isBot: boolean;
}

/**
 * Checks a user's value for a field and returns the text to store (a USER field keeps its id
 * list as JSON). `users` answers for the ids a USER value names.
 */
export function checkProfileFieldValue(field: ProfileFieldFacts, value: unknown, users: Map<number, UserFieldFacts>): string {
  const name = field.name;
  switch (field.type) {
    case FIELD_TYPE.SHORT_TEXT:
    case FIELD_TYPE.EXTERNAL_ACCOUNT:
    case FIELD_TYPE.PRONOUNS:
      return checkCapped(name, value, 50);
    case FIELD_TYPE.LONG_TEXT:
      return checkCapped(name, value, 500);
    case FIELD_TYPE.DATE:
      if (!isString(value)) throw badRequest(`${name} is not a string`);
      if (!isIsoDate(value)) throw badRequest(`${name} is not a date`);
      return value;
    case FIELD_TYPE.URL:
      if (!isString(value)) throw badRequest(`${name} is not a string`);
      if (!isUrl(value)) throw badRequest(`${name} is not a URL`);
      return value;
    case FIELD_TYPE.SELECT: {
      if (!isString(value)) throw badRequest(`${name} is not a string`);
      if (!(value in (JSON.parse(field.fieldData || "{}") as FieldData))) {
        throw badRequest(`'${value}' is not a valid choice for '${name}'.`);
      }
      return value;
    }
    case FIELD_TYPE.USER:
      return JSON.stringify(checkUserIds(value, users));
    default:
      throw badRequest("Invalid field type.");
  }
}

function checkUserIds(value: unknown, users: Map<number, UserFieldFacts>): number[] {
  if (!Array.isArray(value)) throw badRequest("User IDs is not a list");
  value.forEach((id, i) => {
    if (!Number.isInteger(id)) throw badRequest(`User IDs[${i}] is not an integer`);
  });
  const ids = value as number[];
  const unknown = ids.find((id) => !users.has(id));
  if (unknown !== undefined) throw badRequest(`Invalid user ID: ${unknown}`);
  for (const id of ids) {
    if (!users.get(id)!.isActive) throw badRequest(`User with ID ${id} is deactivated`);
    if (users.get(id)!.isBot) throw badRequest(`User with ID ${id} is a bot`);
  }
  return ids;
}

/** Python's date.fromisoformat(v).isoformat() == v: exactly YYYY-MM-DD, a real date. */
export function isIsoDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1) return false;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** An empty value (null, "" or []) removes the user's value instead of setting it. */
export const isEmptyProfileValue = (value: unknown) =>
  value === null || value === "" || (Array.isArray(value) && value.length === 0);
