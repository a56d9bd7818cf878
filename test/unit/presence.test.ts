import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  PRESENCE,
  invisibleModeTime,
  legacyPresence,
  modernPresence,
  planPresenceUpdate,
  presenceLastUpdateId,
  presenceWindow,
  singleUserLegacyPresence,
} from "../../src/domain/presence.js";

const T = 1_700_000_000;

describe("planPresenceUpdate", () => {
  test("a first report creates the record; idle leaves last-active empty", () => {
    assert.deepEqual(planPresenceUpdate(undefined, "active", T), {
      next: { lastConnected: T, lastActive: T },
      created: true,
      changed: true,
      becameOnline: false,
    });
    assert.deepEqual(planPresenceUpdate(undefined, "idle", T).next, { lastConnected: T, lastActive: null });
  });

  test("reports within the minimum interval change nothing", () => {
    const existing = { lastConnected: T, lastActive: T };
    const plan = planPresenceUpdate(existing, "active", T + PRESENCE.updateMinFreqSecs);
    assert.equal(plan.changed, false);
    assert.deepEqual(plan.next, existing);
    assert.equal(plan.becameOnline, false);
  });

  test("an idle report moves only last-connected", () => {
    const plan = planPresenceUpdate({ lastConnected: T, lastActive: T }, "idle", T + 56);
    assert.deepEqual(plan.next, { lastConnected: T + 56, lastActive: T });
    assert.equal(plan.changed, true);
    assert.equal(plan.becameOnline, false);
  });

  test("an active report moves both times and keeps connected ≥ active", () => {
    const plan = planPresenceUpdate({ lastConnected: T + 100, lastActive: T }, "active", T + 120);
    assert.deepEqual(plan.next, { lastConnected: T + 120, lastActive: T + 120 });
    const fromNull = planPresenceUpdate({ lastConnected: null, lastActive: null }, "active", T);
    assert.deepEqual(fromNull.next, { lastConnected: T, lastActive: T });
  });

  test("coming back after more than 130 s of inactivity counts as coming online", () => {
    const gap = PRESENCE.offlineThresholdSecs - PRESENCE.pingIntervalSecs - 10;
    assert.equal(gap, 130);
    const existing = { lastConnected: T, lastActive: T };
    assert.equal(planPresenceUpdate(existing, "active", T + gap).becameOnline, false);
    assert.equal(planPresenceUpdate(existing, "active", T + gap + 1).becameOnline, true);
    assert.equal(planPresenceUpdate(existing, "idle", T + gap + 1).becameOnline, false);
    assert.equal(planPresenceUpdate({ lastConnected: T, lastActive: null }, "active", T + 1).becameOnline, true);
  });
});

describe("formats", () => {
  test("modern: active and idle timestamps, defaulting to the join date", () => {
    assert.deepEqual(modernPresence({ lastActive: T + 5.7, lastConnected: T + 9 }, T - 100), {
      active_timestamp: T + 5,
      idle_timestamp: T + 9,
    });
    assert.deepEqual(modernPresence({ lastActive: null, lastConnected: null }, T - 100), {
      active_timestamp: T - 100,
      idle_timestamp: T - 100,
    });
  });

  test("legacy: active within 70 s of last connection, else idle at the connection time", () => {
    assert.deepEqual(legacyPresence({ lastActive: T, lastConnected: T + 70 }, 0), {
      aggregated: { client: "website", status: "active", timestamp: T },
      website: { client: "website", status: "active", timestamp: T, pushable: false },
    });
    assert.deepEqual(legacyPresence({ lastActive: T, lastConnected: T + 71 }, 0).website, {
      client: "website",
      status: "idle",
      timestamp: T + 71,
      pushable: false,
    });
    assert.equal(legacyPresence({ lastActive: null, lastConnected: T }, T - 1000).website.status, "idle");
  });

  test("one user's legacy presence drops client fields and says offline after the threshold", () => {
    const times = { lastActive: T, lastConnected: T };
    assert.deepEqual(singleUserLegacyPresence(times, 0, T + PRESENCE.offlineThresholdSecs), {
      aggregated: { status: "active", timestamp: T },
      website: { status: "active", timestamp: T },
    });
    assert.equal(singleUserLegacyPresence(times, 0, T + PRESENCE.offlineThresholdSecs + 1).aggregated.status, "offline");
    assert.equal(singleUserLegacyPresence(times, 0, T + PRESENCE.offlineThresholdSecs + 1).website.status, "active");
  });
});

describe("fetch window and update ids", () => {
  test("without a positive last_update_id, history is limited (14 days by default)", () => {
    assert.deepEqual(presenceWindow(undefined, undefined, T), { afterUpdateId: undefined, connectedSince: T - 14 * 86400, none: false });
    assert.deepEqual(presenceWindow(-1, 365, T), { afterUpdateId: -1, connectedSince: T - 365 * 86400, none: false });
    assert.deepEqual(presenceWindow(0, 2, T), { afterUpdateId: 0, connectedSince: T - 2 * 86400, none: false });
  });

  test("a positive last_update_id bounds the answer instead of the age", () => {
    assert.deepEqual(presenceWindow(5, 1, T), { afterUpdateId: 5, connectedSince: undefined, none: false });
  });

  test("history_limit_days 0 returns nothing", () => {
    assert.equal(presenceWindow(undefined, 0, T).none, true);
  });

  test("presence_last_update_id: newest returned, else the client's value, else -1", () => {
    assert.equal(presenceLastUpdateId([3, 9, 4], 2), 9);
    assert.equal(presenceLastUpdateId([], 7), 7);
    assert.equal(presenceLastUpdateId([], -1), -1);
    assert.equal(presenceLastUpdateId([], undefined), -1);
  });

  test("invisible mode dates the user to just before they would count as offline", () => {
    assert.equal(invisibleModeTime(T), T - PRESENCE.offlineThresholdSecs - 120);
  });
});
