/**
 * Validation of linkifiers and code playgrounds, reported the way Zulip's models report it: a
 * map from field name (or `__all__` for rules across fields) to messages, in the order Django's
 * full_clean finds them — each field's own checks in field order, then the cross-field checks,
 * then uniqueness (only when the fields it involves are valid).
 */
import { linkifierPatternError, linkifierPatternGroups } from "../markdown/linkifiers.js";
import { UriTemplate } from "../markdown/uri_template.js";

export type ValidationErrors = Record<string, string[]>;

export const ALL_FIELDS = "__all__";
const BLANK = "This field cannot be blank.";
const INVALID_TEMPLATE = "Invalid URL template.";
// PostgreSQL text cannot hold NUL, so it is refused with Django's wording for such values.
export const NULL_CHARACTERS = "Null characters are not allowed.";

export const DUPLICATE_LINKIFIER = "Realm filter with this Realm and Pattern already exists.";
export const DUPLICATE_PLAYGROUND = "Realm playground with this Realm, Pygments language and Name already exists.";

function addError(errors: ValidationErrors, key: string, message: string): void {
  (errors[key] ??= []).push(message);
}

/** A text field's own checks: not blank, no NUL, then the field's validator if any. */
function checkField(errors: ValidationErrors, field: string, value: string, validate?: (v: string) => string | null): void {
  const message = value === "" ? BLANK : value.includes("\u0000") ? NULL_CHARACTERS : (validate?.(value) ?? null);
  if (message !== null) addError(errors, field, message);
}

/**
 * Zulip checks only a template's syntax. Confab also refuses templates whose links could run or
 * embed content (`javascript:`, `data:`), or whose scheme a matched text could choose, since
 * topic_links carry the URLs to clients as they are.
 */
const SAFE_SCHEMES = new Set(["", "http", "https"]);

function templateError(template: string): string | null {
  const scheme = UriTemplate.parse(template)?.scheme();
  return scheme !== undefined && SAFE_SCHEMES.has(scheme) ? null : INVALID_TEMPLATE;
}

/** Python's repr of a group name (names never contain quotes). */
const repr = (name: string) => `'${name}'`;

const smallest = (names: Iterable<string>): string | undefined => [...names].sort()[0];

/**
 * What is wrong with a linkifier (already stripped), uniqueness aside: every named group of the
 * pattern must be a variable of the URL template and the other way round.
 */
export function linkifierErrors(pattern: string, urlTemplate: string): ValidationErrors {
  const errors: ValidationErrors = {};
  checkField(errors, "pattern", pattern);
  checkField(errors, "url_template", urlTemplate, templateError);

  const patternError = linkifierPatternError(pattern);
  if (patternError !== null) {
    addError(errors, ALL_FIELDS, `Bad regular expression: ${patternError}`);
    return errors;
  }
  const template = UriTemplate.parse(urlTemplate);
  if (!template) return errors;
  const groups = new Set(linkifierPatternGroups(pattern));
  const variables = new Set(template.variables());
  const notInPattern = smallest([...variables].filter((v) => !groups.has(v)));
  if (notInPattern !== undefined) {
    addError(errors, ALL_FIELDS, `Group ${repr(notInPattern)} in URL template is not present in linkifier pattern.`);
    return errors;
  }
  const notInTemplate = smallest([...groups].filter((g) => !variables.has(g)));
  if (notInTemplate !== undefined) {
    addError(errors, ALL_FIELDS, `Group ${repr(notInTemplate)} in linkifier pattern is not present in URL template.`);
  }
  return errors;
}

/** The characters a code block's language may have (Python's `$` also allows one final newline). */
const PYGMENTS_LANGUAGE = /^[ a-zA-Z0-9_+,\-./#]*\n?$/;
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

export const validPygmentsLanguageCharacters = (language: string): boolean => PYGMENTS_LANGUAGE.test(language);

/**
 * What is wrong with a code playground (already stripped), uniqueness aside: its URL template
 * must have exactly one variable, `code`.
 */
export function playgroundErrors(p: { name: string; pygments_language: string; url_template: string }): ValidationErrors {
  const errors: ValidationErrors = {};
  checkField(errors, "url_template", p.url_template, templateError);
  checkField(errors, "name", p.name);
  checkField(errors, "pygments_language", p.pygments_language);

  const template = UriTemplate.parse(p.url_template);
  if (!template) return errors;
  const variables = new Set(template.variables());
  if (!variables.has("code")) {
    addError(errors, ALL_FIELDS, 'Missing the required variable "code" in the URL template');
  } else if (variables.size !== 1) {
    addError(errors, ALL_FIELDS, '"code" should be the only variable present in the URL template');
  }
  return errors;
}

export const hasErrors = (errors: ValidationErrors): boolean => Object.keys(errors).length > 0;
