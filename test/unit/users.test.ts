import { test } from "node:test";
import assert from "node:assert/strict";
import { ZulipError } from "../../src/http/errors.js";
import { isValidEmail, nameKey, passwordStrongEnough, validateFullName } from "../../src/domain/users.js";
import { checkUserGroupName } from "../../src/domain/user_groups.js";
import { isoMinutes, visibilityAllowsRole } from "../../src/format/users.js";
import { EMAIL_ADDRESS_VISIBILITY as V } from "../../src/domain/realm_settings.js";
import { Role } from "../../src/domain/roles.js";

const fails = (fn: () => unknown, msg: string) =>
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.status === 400);

test("full names are stripped and checked as Zulip's check_full_name does", () => {
  assert.equal(validateFullName("  Ada Lovelace "), "Ada Lovelace");
  assert.equal(validateFullName("शिव"), "शिव");
  assert.equal(validateFullName("x".repeat(100)), "x".repeat(100));
  fails(() => validateFullName("x".repeat(101)), "Name too long!");
  fails(() => validateFullName("😀".repeat(101)), "Name too long!");
  assert.equal(validateFullName("😀".repeat(100)), "😀".repeat(100));
  fails(() => validateFullName("a"), "Name too short!");
  fails(() => validateFullName(" a  "), "Name too short!");
  for (const c of ["*", "`", "\\", ">", '"', "@", "\u0007", "\u200b", "\ue000"]) {
    fails(() => validateFullName(`Ab${c}cd`), "Invalid characters in name!");
  }
  fails(() => validateFullName("Bobby|123"), "Invalid format!");
  fails(() => validateFullName("Bobby|1\n"), "Invalid format!");
  assert.equal(validateFullName("Bobby|x1"), "Bobby|x1");
  assert.equal(validateFullName("Bobby | 1a"), "Bobby | 1a");
});

test("names compare for uniqueness after NFKC and case folding", () => {
  assert.equal(nameKey("ＡＢＣ"), nameKey("abc"));
  assert.notEqual(nameKey("abc"), nameKey("abd"));
});

test("email addresses are checked like Django's EmailValidator", () => {
  for (const ok of ["a@b.co", "first.last+tag@example.com", "x@localhost", "o'neil@sub.example.org", '"odd..name"@example.com']) {
    assert.equal(isValidEmail(ok), true, ok);
  }
  for (const bad of ["", "plain", "@example.com", "a@", "a@b", "a@b.c", "a..b@example.com", "a@-example.com", "a@example-.com", "a b@example.com", "\"a b\"@example.com", "a@ex ample.com", `${"a".repeat(320)}@x.com`]) {
    assert.equal(isValidEmail(bad), false, bad);
  }
});

test("passwords need Zulip's default minimum length of 6", () => {
  assert.equal(passwordStrongEnough("12345"), false);
  assert.equal(passwordStrongEnough("123456"), true);
  assert.equal(passwordStrongEnough(""), false);
});

test("user group names", () => {
  assert.equal(checkUserGroupName(" spaced "), " spaced ");
  fails(() => checkUserGroupName(""), "User group name can't be empty!");
  fails(() => checkUserGroupName(" \t "), "User group name can't be empty!");
  fails(() => checkUserGroupName("x".repeat(101)), "User group name cannot exceed 100 characters.");
  assert.equal(checkUserGroupName("é".repeat(100)), "é".repeat(100));
  for (const p of ["@", "role:", "user:", "stream:", "channel:"]) {
    fails(() => checkUserGroupName(`${p}x`), `User group name cannot start with '${p}'.`);
  }
  assert.equal(checkUserGroupName("x@role:"), "x@role:");
});

test("email visibility by role", () => {
  const roles = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];
  const table = (v: number) => roles.map((r) => visibilityAllowsRole(v, r));
  assert.deepEqual(table(V.EVERYONE), [true, true, true, true, true]);
  assert.deepEqual(table(V.MEMBERS), [true, true, true, true, false]);
  assert.deepEqual(table(V.MODERATORS), [true, true, true, false, false]);
  assert.deepEqual(table(V.ADMINS), [true, true, false, false, false]);
  assert.deepEqual(table(V.NOBODY), [false, false, false, false, false]);
});

test("date_joined is shown to the minute with a UTC offset", () => {
  assert.equal(isoMinutes(1571557853), "2019-10-20T07:50+00:00");
  assert.equal(isoMinutes(0), "1970-01-01T00:00+00:00");
});
