import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  deleteRefusal,
  ExportStatus,
  exportRefusal,
  isExportType,
  isPrivateUserTable,
  loadOrder,
  serializeExport,
  tableScope,
} from "../../src/domain/realm_export.js";

describe("exportRefusal", () => {
  const owner = (emailAddressVisibility: number, allowPrivateDataExport: boolean) => ({ emailAddressVisibility, allowPrivateDataExport });
  test("a full export needs one consenting owner", () => {
    assert.match(exportRefusal(2, [owner(1, false)], "s@x")!, /consenting to the export or contact s@x/);
    assert.equal(exportRefusal(2, [owner(4, false), owner(4, true)], "s@x"), null);
    assert.match(exportRefusal(2, [], "s@x")!, /consenting/);
  });
  test("a public export needs one owner whose address administrators may see", () => {
    // Everyone, members, administrators, moderators: all let administrators see it; nobody (4) doesn't.
    for (const v of [1, 2, 3, 5]) assert.equal(exportRefusal(1, [owner(v, false)], "s@x"), null);
    assert.match(exportRefusal(1, [owner(4, true)], "s@x")!, /see their email address or contact s@x for help$/);
  });
});

describe("serializeExport and deleteRefusal", () => {
  const row = { id: 3, acting_user_id: 9, type: 1, date_requested: 10, date_succeeded: null, date_failed: null, date_deleted: null };
  test("pending until it succeeds or fails; a URL only when succeeded", () => {
    for (const status of [ExportStatus.REQUESTED, ExportStatus.STARTED]) {
      assert.deepEqual(serializeExport({ ...row, status }, "u"), {
        id: 3, export_time: 10, acting_user_id: 9, export_url: null, deleted_timestamp: null, failed_timestamp: null, pending: true, export_type: 1,
      });
    }
    assert.equal(serializeExport({ ...row, status: ExportStatus.SUCCEEDED }, "u").export_url, "u");
    assert.equal(serializeExport({ ...row, status: ExportStatus.FAILED, date_failed: 11 }, "u").pending, false);
    assert.equal(serializeExport({ ...row, status: ExportStatus.DELETED, date_deleted: 12 }, "u").export_url, null);
  });
  test("only a finished export can be deleted", () => {
    assert.equal(deleteRefusal(ExportStatus.SUCCEEDED), null);
    assert.equal(deleteRefusal(ExportStatus.DELETED), "Export already deleted");
    assert.equal(deleteRefusal(ExportStatus.FAILED), "Export failed, nothing to delete");
    assert.equal(deleteRefusal(ExportStatus.REQUESTED), "Export still in progress");
    assert.equal(deleteRefusal(ExportStatus.STARTED), "Export still in progress");
  });
  test("export types", () => {
    assert.deepEqual([0, 1, 2, 3].map(isExportType), [false, true, true, false]);
  });
});

describe("tableScope", () => {
  test("reads references off column names, all of them", () => {
    assert.deepEqual(tableScope("realms", ["id"]), { kind: "realm" });
    assert.deepEqual(tableScope("recipients", ["id", "type", "type_id"]), { kind: "recipients" });
    assert.deepEqual(tableScope("user_messages", ["user_id", "message_id", "flags"]), {
      kind: "columns",
      refs: [{ column: "user_id", parent: "users" }, { column: "message_id", parent: "messages" }],
    });
    assert.deepEqual(tableScope("messages", ["id", "realm_id", "stream_id"]), { kind: "columns", refs: [{ column: "realm_id", parent: "realms" }] });
    assert.equal(tableScope("push_uuids", ["owner_kind", "owner_id", "uuid"]), null);
  });
  test("user-keyed tables are private unless everyone sees them", () => {
    assert.equal(isPrivateUserTable("drafts", ["id", "user_id"]), true);
    assert.equal(isPrivateUserTable("subscriptions", ["user_id", "stream_id"]), false);
    assert.equal(isPrivateUserTable("user_messages", ["user_id", "message_id"]), false);
    assert.equal(isPrivateUserTable("streams", ["id", "realm_id"]), false);
  });
});

describe("loadOrder", () => {
  test("referenced tables first; self-references ignored; deterministic", () => {
    const refs = new Map([
      ["users", new Set(["realms", "users"])],
      ["messages", new Set(["users", "recipients", "realms"])],
      ["recipients", new Set<string>()],
      ["user_messages", new Set(["users", "messages"])],
    ]);
    const order = loadOrder(["user_messages", "messages", "users", "realms", "recipients"], refs);
    assert.deepEqual(order, ["realms", "recipients", "users", "messages", "user_messages"]);
  });
  test("references to tables not loaded don't matter; cycles are refused", () => {
    assert.deepEqual(loadOrder(["a"], new Map([["a", new Set(["gone"])]])), ["a"]);
    assert.throws(() => loadOrder(["a", "b"], new Map([["a", new Set(["b"])], ["b", new Set(["a"])]])), /cycle: a -> b -> a/);
  });
});
