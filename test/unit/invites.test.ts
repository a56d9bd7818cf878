import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  INVITE_STATUS,
  accountTooNewToInvite,
  emailAddressProblem,
  exceedsDailyLimit,
  existingAccountProblem,
  expiryDate,
  inviteRoleRefusal,
  inviteState,
  manageInviteRefusal,
  parseInviteeEmails,
  welcomeTextFor,
  type RealmEmailPolicy,
} from "../../src/domain/invites.js";
import { Role } from "../../src/domain/roles.js";

const ROLES = [Role.OWNER, Role.ADMINISTRATOR, Role.MODERATOR, Role.MEMBER, Role.GUEST];

describe("parseInviteeEmails", () => {
  test("splits on commas and newlines, strips, and drops duplicates in order", () => {
    assert.deepEqual(parseInviteeEmails("a@x.com, b@x.com\nc@x.com ,a@x.com"), ["a@x.com", "b@x.com", "c@x.com"]);
  });
  test("takes the address out of `Name <address>`", () => {
    assert.deepEqual(parseInviteeEmails("Ann Example <ann@x.com>, bob@x.com"), ["ann@x.com", "bob@x.com"]);
  });
  test("keeps an empty piece so a stray separator is reported as an invalid address", () => {
    assert.deepEqual(parseInviteeEmails("a@x.com,"), ["a@x.com", ""]);
    assert.deepEqual(parseInviteeEmails("a@x.com\n\nb@x.com"), ["a@x.com", "", "b@x.com"]);
    assert.deepEqual(parseInviteeEmails("   "), [""]);
  });
  test("is case-sensitive, as Zulip's set of strings is", () => {
    assert.deepEqual(parseInviteeEmails("A@x.com,a@x.com"), ["A@x.com", "a@x.com"]);
  });
});

describe("inviteRoleRefusal", () => {
  test("owners may invite every role", () => {
    for (const r of ROLES) assert.equal(inviteRoleRefusal(r, Role.OWNER), null);
  });
  test("administrators may invite every role but owner", () => {
    for (const r of ROLES) assert.equal(inviteRoleRefusal(r, Role.ADMINISTRATOR), r === Role.OWNER ? "owner_required" : null);
  });
  test("moderators and members may invite only members and guests", () => {
    for (const caller of [Role.MODERATOR, Role.MEMBER]) {
      assert.equal(inviteRoleRefusal(Role.OWNER, caller), "owner_required");
      assert.equal(inviteRoleRefusal(Role.ADMINISTRATOR, caller), "admin_required");
      assert.equal(inviteRoleRefusal(Role.MODERATOR, caller), "admin_required");
      assert.equal(inviteRoleRefusal(Role.MEMBER, caller), null);
      assert.equal(inviteRoleRefusal(Role.GUEST, caller), null);
    }
  });
});

describe("manageInviteRefusal (someone else's invitation)", () => {
  test("owners manage all; administrators all but owner invitations; nobody else any", () => {
    for (const invitedAs of ROLES) {
      assert.equal(manageInviteRefusal(invitedAs, Role.OWNER), null);
      assert.equal(manageInviteRefusal(invitedAs, Role.ADMINISTRATOR), invitedAs === Role.OWNER ? "owner_required" : null);
      for (const caller of [Role.MODERATOR, Role.MEMBER]) {
        assert.equal(manageInviteRefusal(invitedAs, caller), invitedAs === Role.OWNER ? "owner_required" : "admin_required");
      }
    }
  });
});

describe("emailAddressProblem", () => {
  const open: RealmEmailPolicy = { emailsRestrictedToDomains: false, disallowDisposableEmailAddresses: true, domains: [] };
  test("malformed addresses", () => {
    for (const bad of ["", "plain", "a@", "@x.com", "a b@x.com", "a@x..com"]) assert.equal(emailAddressProblem(bad, open), "Invalid address.");
  });
  test("disposable domains are refused only when the organization says so", () => {
    assert.equal(emailAddressProblem("someone@mailinator.com", open), "Please use your real email address.");
    assert.equal(emailAddressProblem("someone@MAILINATOR.COM", open), "Please use your real email address.");
    assert.equal(emailAddressProblem("someone@mailinator.com", { ...open, disallowDisposableEmailAddresses: false }), null);
    assert.equal(emailAddressProblem("some+one@example.com", open), null);
  });
  test("restricted organizations: listed domains, subdomains where allowed, and no +", () => {
    const restricted: RealmEmailPolicy = {
      emailsRestrictedToDomains: true,
      disallowDisposableEmailAddresses: true,
      domains: [
        { domain: "example.com", allowSubdomains: false },
        { domain: "corp.org", allowSubdomains: true },
      ],
    };
    assert.equal(emailAddressProblem("a@example.com", restricted), null);
    assert.equal(emailAddressProblem("a@EXAMPLE.com", restricted), null);
    assert.equal(emailAddressProblem("a@sub.example.com", restricted), "Outside your domain.");
    assert.equal(emailAddressProblem("a@deep.sub.corp.org", restricted), null);
    assert.equal(emailAddressProblem("a@other.com", restricted), "Outside your domain.");
    assert.equal(emailAddressProblem("a+b@example.com", restricted), "Email addresses containing + are not allowed.");
    assert.equal(emailAddressProblem("a@x.com", { ...restricted, domains: [] }), "Outside your domain.");
  });
});

describe("existingAccountProblem", () => {
  test("system bot addresses, active and deactivated accounts", () => {
    assert.deepEqual(existingAccountProblem("Welcome-Bot@zulip.com", undefined), ["Reserved for system bots.", false]);
    assert.deepEqual(existingAccountProblem("a@x.com", { isActive: true }), ["Already has an account.", false]);
    assert.deepEqual(existingAccountProblem("a@x.com", { isActive: false }), ["Account has been deactivated.", true]);
    assert.equal(existingAccountProblem("a@x.com", undefined), null);
  });
});

describe("limits, age, expiry and state", () => {
  test("the daily limit admits exactly the limit", () => {
    assert.equal(exceedsDailyLimit(3, 97, 100), false);
    assert.equal(exceedsDailyLimit(4, 97, 100), true);
    assert.equal(exceedsDailyLimit(1, 0, 0), true);
  });
  test("new non-admin accounts may not invite to organizations that need no invitation", () => {
    const now = 1_000_000;
    const young = { inviteRequired: false, role: Role.MEMBER, dateJoined: now - 2 * 86400, now };
    assert.equal(accountTooNewToInvite(young), true);
    assert.equal(accountTooNewToInvite({ ...young, dateJoined: now - 3 * 86400 }), false);
    assert.equal(accountTooNewToInvite({ ...young, role: Role.ADMINISTRATOR }), false);
    assert.equal(accountTooNewToInvite({ ...young, inviteRequired: true }), false);
  });
  test("expiry is minutes from now, or never", () => {
    assert.equal(expiryDate(1000, 10), 1600);
    assert.equal(expiryDate(1000, null), null);
  });
  test("state of an invitation", () => {
    assert.equal(inviteState({ status: INVITE_STATUS.ACTIVE, expiry_date: null }, 5), "active");
    assert.equal(inviteState({ status: INVITE_STATUS.ACTIVE, expiry_date: 5 }, 5), "active");
    assert.equal(inviteState({ status: INVITE_STATUS.ACTIVE, expiry_date: 4 }, 5), "expired");
    assert.equal(inviteState({ status: INVITE_STATUS.USED, expiry_date: 4 }, 5), "used");
    assert.equal(inviteState({ status: INVITE_STATUS.REVOKED, expiry_date: null }, 5), "revoked");
  });
  test("welcome text: the invitation's, else the organization's; empty means none", () => {
    assert.equal(welcomeTextFor("Hi!", "Org text"), "Hi!");
    assert.equal(welcomeTextFor(null, "Org text"), "Org text");
    assert.equal(welcomeTextFor("", "Org text"), null);
    assert.equal(welcomeTextFor(null, ""), null);
  });
});
