/** The web client's color theme from Zulip's color_scheme setting, and the favicon's unread badge. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { COLOR_SCHEMES, themeFor } from "../../../web/src/theme.js";
import { badgeLabel } from "../../../web/src/favicon.js";

test("dark (2) and light (3) hold whatever the system prefers", () => {
  for (const systemDark of [true, false]) {
    assert.equal(themeFor(2, systemDark), "dark");
    assert.equal(themeFor(3, systemDark), "light");
  }
});

test("automatic (1) follows the system, as does a value this client does not know", () => {
  for (const scheme of [1, undefined, null, 0, 7, "2"]) {
    assert.equal(themeFor(scheme, true), "dark", String(scheme));
    assert.equal(themeFor(scheme, false), "light", String(scheme));
  }
});

test("the switch offers the three values of the OpenAPI enum, automatic first", () => {
  assert.deepEqual(
    COLOR_SCHEMES.map((s) => s.value),
    [1, 2, 3],
  );
});

test("the favicon's badge: empty without unreads, digits up to 99, then 99+", () => {
  assert.equal(badgeLabel(0), "");
  assert.equal(badgeLabel(1), "1");
  assert.equal(badgeLabel(99), "99");
  assert.equal(badgeLabel(100), "99+");
});
