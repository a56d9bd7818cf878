import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged } from "../helpers/expect.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
const fieldsOf = (realmId: number) =>
  srv.app.db.selectFrom("custom_profile_fields").selectAll().where("realm_id", "=", realmId).orderBy("id").execute();
const snapshot = async () => ({
  fields: await srv.app.db.selectFrom("custom_profile_fields").selectAll().orderBy("id").execute(),
  values: await srv.app.db.selectFrom("custom_profile_values").selectAll().orderBy("field_id").orderBy("user_id").execute(),
});

async function createField(params: Record<string, unknown>): Promise<number> {
  const r = await api(t.admin).post("/realm/profile_fields", params as never);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.id;
}

async function setValues(u: TestUser, data: { id: number; value: string }[]) {
  const r = await api(t.admin).patch(`/users/${u.id}`, { profile_data: data });
  assert.equal(r.body.result, "success", JSON.stringify(r.body));
}

let text: number;
let choice: number;
let github: number;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("custom_profile_values").execute();
  await srv.app.db.deleteFrom("custom_profile_fields").execute();
  text = await createField({ name: "Team", field_type: 1, hint: "Which team" });
  choice = await createField({
    name: "Editor",
    field_type: 3,
    field_data: { vim: { text: "Vim", order: "1" }, emacs: { text: "Emacs", order: "2" } },
  });
  github = await createField({ field_type: 7, field_data: { subtype: "github" } });
});

async function queue(u: TestUser) {
  const r = await api(u).post("/register", { fetch_event_types: ["custom_profile_fields"], event_types: ["custom_profile_fields"] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}
async function events(u: TestUser, queueId: string) {
  const r = await api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true });
  return r.body.events.filter((e: { type: string }) => e.type !== "heartbeat");
}

describe("who may change profile fields", () => {
  test("only administrators and owners; everyone else is refused with nothing changed", async () => {
    const log = new EventLog(srv);
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      const attempts = [
        () => api(u).patch("/realm/profile_fields", { order: [github, choice, text] }),
        () => api(u).patch(`/realm/profile_fields/${text}`, { name: "Squad" }),
        () => api(u).delete(`/realm/profile_fields/${text}`),
      ];
      for (const attempt of attempts) await expectRefusedUnchanged(snapshot, log, attempt, "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    log.stop();
    for (const u of [t.owner, t.admin]) {
      assert.equal((await api(u).patch(`/realm/profile_fields/${text}`, { hint: `set by ${u.fullName}` })).body.result, "success");
    }
    assert.equal((await fieldsOf(t.realm.id))[0].hint, "set by Adam Admin");
  });

  test("another organization's field is not found", async () => {
    const log = new EventLog(srv);
    await expectRefusedUnchanged(snapshot, log, () => api(o.admin).patch(`/realm/profile_fields/${text}`, { name: "X" }), `Field id ${text} not found.`);
    await expectRefusedUnchanged(snapshot, log, () => api(o.admin).delete(`/realm/profile_fields/${text}`), `Field id ${text} not found.`);
    await expectRefusedUnchanged(snapshot, log, () => api(t.admin).delete("/realm/profile_fields/4294967296"), "Field id 4294967296 not found.");
    // Reordering only concerns the caller's organization: the other one has no fields.
    assert.equal((await api(o.admin).patch("/realm/profile_fields", { order: [] })).body.result, "success");
    log.stop();
  });
});

describe("PATCH /realm/profile_fields (reorder)", () => {
  test("orders fields by their position in the list and sends the list to everyone in the organization", async () => {
    const member = await queue(t.member);
    const guest = await queue(t.guest);
    const other = await queue(o.member);
    assert.deepEqual(member.custom_profile_fields.map((f: { id: number }) => f.id), [text, choice, github]);
    const r = await api(t.admin).patch("/realm/profile_fields", { order: [github, 999999, text, choice] });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const listed = (await api(t.member).get("/realm/profile_fields")).body.custom_fields;
    assert.deepEqual(listed.map((f: { id: number; order: number }) => [f.id, f.order]), [[github, 0], [text, 2], [choice, 3]]);
    for (const [u, q] of [[t.member, member], [t.guest, guest]] as const) {
      const evs = await events(u, q.queue_id);
      assert.equal(evs.length, 1);
      assert.equal(evs[0].type, "custom_profile_fields");
      assert.deepEqual(evs[0].fields, listed);
    }
    assert.deepEqual(await events(o.member, other.queue_id), []);
    assert.deepEqual((await queue(t.member)).custom_profile_fields, listed);
  });

  test("every field must be named", async () => {
    const log = new EventLog(srv);
    await expectRefusedUnchanged(snapshot, log, () => api(t.admin).patch("/realm/profile_fields", { order: [github, text] }), "Invalid order mapping.");
    await expectRefusedUnchanged(snapshot, log, () => api(t.admin).patch("/realm/profile_fields", { order: ["a"] }), "order[0] is not an integer");
    await expectRefusedUnchanged(snapshot, log, () => api(t.admin).patch("/realm/profile_fields", {}), "Missing 'order' argument", "REQUEST_VARIABLE_MISSING");
    log.stop();
  });
});

describe("PATCH /realm/profile_fields/{field_id}", () => {
  test("changes only what is sent, and tells everyone", async () => {
    const q = await queue(t.guest);
    const r = await api(t.admin).patch(`/realm/profile_fields/${text}`, { name: "  Squad ", required: true, editable_by_user: false, display_in_profile_summary: true });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const [field] = (await api(t.member).get("/realm/profile_fields")).body.custom_fields;
    assert.deepEqual(field, {
      id: text,
      name: "Squad",
      type: 1,
      hint: "Which team",
      field_data: "",
      order: text,
      required: true,
      editable_by_user: false,
      display_in_profile_summary: true,
    });
    const evs = await events(t.guest, q.queue_id);
    assert.deepEqual(evs.map((e: { fields: unknown[] }) => e.fields[0]), [field]);
    // Keeping its own name is not a clash.
    assert.equal((await api(t.admin).patch(`/realm/profile_fields/${text}`, { name: "Squad", display_in_profile_summary: false })).body.result, "success");
    assert.equal("display_in_profile_summary" in (await api(t.member).get("/realm/profile_fields")).body.custom_fields[0], false);
  });

  test("new choices for a list field drop the values of choices no longer offered", async () => {
    await setValues(t.member, [{ id: choice, value: "vim" }]);
    await setValues(t.member2, [{ id: choice, value: "emacs" }]);
    const r = await api(t.admin).patch(`/realm/profile_fields/${choice}`, { field_data: { emacs: { text: "Emacs", order: "1" }, nano: { text: "Nano", order: "2" } } });
    assert.equal(r.body.result, "success", JSON.stringify(r.body));
    const values = await srv.app.db.selectFrom("custom_profile_values").select(["user_id", "value"]).where("field_id", "=", choice).execute();
    assert.deepEqual(values, [{ user_id: t.member2.id, value: "emacs" }]);
    assert.deepEqual(JSON.parse((await fieldsOf(t.realm.id))[1].field_data), { emacs: { text: "Emacs", order: "1" }, nano: { text: "Nano", order: "2" } });
  });

  test("a ready-made external account only changes its flags", async () => {
    assert.equal((await api(t.admin).patch(`/realm/profile_fields/${github}`, { display_in_profile_summary: true, name: "GitHub username" })).body.result, "success");
    const log = new EventLog(srv);
    await expectRefusedUnchanged(snapshot, log, () => api(t.admin).patch(`/realm/profile_fields/${github}`, { name: "GH" }), "Default custom field cannot be updated.");
    await expectRefusedUnchanged(
      snapshot,
      log,
      () => api(t.admin).patch(`/realm/profile_fields/${github}`, { field_data: { subtype: "twitter" } }),
      "Default custom field cannot be updated.",
    );
    log.stop();
  });

  test("refused changes leave everything as it was", async () => {
    await api(t.admin).patch(`/realm/profile_fields/${text}`, { display_in_profile_summary: true });
    await api(t.admin).patch(`/realm/profile_fields/${choice}`, { display_in_profile_summary: true });
    const long = await createField({ name: "About", field_type: 2 });
    const log = new EventLog(srv);
    const patch = (id: number, p: Record<string, unknown>) => () => api(t.admin).patch(`/realm/profile_fields/${id}`, p as never);
    const cases: [() => Promise<{ status: number; body: Record<string, any> }>, string][] = [
      [patch(999999, { name: "X" }), "Field id 999999 not found."],
      [patch(github, { display_in_profile_summary: true }), "Only 2 custom profile fields can be displayed in the profile summary."],
      [patch(text, { name: "Editor" }), "A field with that label already exists."],
      [patch(text, { name: "   " }), "Label cannot be blank."],
      [patch(text, { name: "n".repeat(41) }), "name is too long (limit: 40 characters)"],
      [patch(text, { hint: "h".repeat(81) }), "hint is too long (limit: 80 characters)"],
      [patch(choice, { field_data: {} }), "Field must have at least one choice."],
      [patch(choice, { field_data: { a: { text: "A", order: "1" }, b: { text: "A", order: "2" } } }), "Field must not have duplicate choices."],
      [patch(text, { required: "yes" }), "required is not valid JSON"],
      [patch(text, { editable_by_user: 1 }), "editable_by_user is not a boolean"],
    ];
    for (const [attempt, msg] of cases) await expectRefusedUnchanged(snapshot, log, attempt, msg);
    // Freeing a place lets a long-text field in no more than any other unsupported type.
    await api(t.admin).patch(`/realm/profile_fields/${choice}`, { display_in_profile_summary: false });
    await expectRefusedUnchanged(snapshot, log, patch(long, { display_in_profile_summary: true }), "Field type not supported for display in profile summary.");
    log.stop();
  });
});

describe("DELETE /realm/profile_fields/{field_id}", () => {
  test("removes the field and every user's value, and tells everyone in the organization", async () => {
    await setValues(t.member, [{ id: text, value: "Core" }, { id: choice, value: "vim" }]);
    const q = await queue(t.member);
    const other = await queue(o.admin);
    assert.deepEqual((await api(t.owner).delete(`/realm/profile_fields/${text}`)).body, { result: "success", msg: "" });
    assert.deepEqual((await fieldsOf(t.realm.id)).map((f) => f.id), [choice, github]);
    const values = await srv.app.db.selectFrom("custom_profile_values").select("field_id").where("user_id", "=", t.member.id).execute();
    assert.deepEqual(values, [{ field_id: choice }]);
    const evs = await events(t.member, q.queue_id);
    assert.deepEqual(evs.map((e: { fields: { id: number }[] }) => e.fields.map((f) => f.id)), [[choice, github]]);
    assert.deepEqual(await events(o.admin, other.queue_id), []);
    const again = await api(t.owner).delete(`/realm/profile_fields/${text}`);
    expectError(again, `Field id ${text} not found.`);
  });
});
