/**
 * Avatars and organization images over HTTP: POST/DELETE /users/me/avatar, bots' avatars through
 * PATCH /bots/{id}, POST/DELETE /realm/icon and /realm/logo, the files they serve and the
 * /avatar/{id} redirects; Zulip's refusals leave nothing changed; events read through GET /events.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, basicAuth, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { multipart, type Part } from "../helpers/multipart.js";
import { expectError, expectSuccess } from "../helpers/expect.js";
import { setRealmProps } from "../helpers/channels.js";
import { setUserProp } from "../../src/store/users.js";

let srv: TestServer;
let other: TestRealm;
let realms = 0;
/** Each test gets an organization of its own, so versions and audiences never mix. */
const freshRealm = () => createTestRealm(srv.app, `avatars${++realms}`);
const api = (u: TestUser) => new Api(srv.url, u);

let PNG: Buffer;
let JPEG: Buffer;
let GIF: Buffer;

before(async () => {
  srv = await startTestServer();
  other = await createTestRealm(srv.app, "other");
  const raw = { create: { width: 300, height: 200, channels: 3 as const, background: { r: 200, g: 40, b: 90 } } };
  PNG = await sharp(raw).png().toBuffer();
  JPEG = await sharp({ create: { ...raw.create, width: 640, height: 900 } }).jpeg().toBuffer();
  GIF = await sharp({ create: { ...raw.create, width: 40, height: 60 } }).gif().toBuffer();
});
after(() => srv.close());

async function send(u: TestUser, method: string, route: string, parts: Part[], fields: Record<string, string> = {}): Promise<ApiResponse> {
  const { body, type } = multipart(
    parts.map((p, i) => ({ name: `f${i}`, ...p })),
    fields,
  );
  const res = await fetch(`${srv.url}/api/v1${route}`, { method, headers: { authorization: basicAuth(u), "content-type": type }, body });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

const png = (data = PNG): Part => ({ fileName: "me.png", data, type: "image/png" });
const upload = (u: TestUser, parts: Part[] = [png()]) => send(u, "POST", "/users/me/avatar", parts);

async function imageAt(url: string): Promise<sharp.Metadata & { status: number; type: string | null }> {
  const res = await fetch(new URL(url, srv.url));
  assert.equal(res.status, 200, url);
  return { ...(await sharp(Buffer.from(await res.arrayBuffer())).metadata()), status: res.status, type: res.headers.get("content-type") };
}

const row = (id: number) => srv.app.db.selectFrom("users").select(["avatar_source", "avatar_version"]).where("id", "=", id).executeTakeFirstOrThrow();

async function queue(u: TestUser, eventTypes: string[]): Promise<string> {
  const r = await api(u).post("/register", { event_types: eventTypes });
  expectSuccess(r);
  return r.body.queue_id;
}

async function events(u: TestUser, queueId: string): Promise<Record<string, any>[]> {
  const r = await api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true });
  expectSuccess(r);
  return r.body.events.filter((e: { type: string }) => e.type !== "heartbeat");
}

describe("POST /users/me/avatar", () => {
  test("a PNG becomes Zulip's two square sizes, served at versioned URLs everywhere the user appears", async () => {
    const t = await freshRealm();
    const r = await upload(t.member);
    expectSuccess(r);
    const url: string = r.body.avatar_url;
    assert.match(url, new RegExp(`^/user_avatars/${t.realm.id}/[0-9a-f]{40}\\.png\\?version=2$`));
    const small = await imageAt(url);
    assert.deepEqual([small.format, small.width, small.height, small.type], ["png", 100, 100, "image/png"]);
    const medium = await imageAt(url.replace(".png?", "-medium.png?"));
    assert.deepEqual([medium.width, medium.height], [500, 500]);
    assert.deepEqual(await row(t.member.id), { avatar_source: "U", avatar_version: 2 });

    // A client computing gravatars still gets the URL of an uploaded avatar.
    const user = (await api(t.admin).get(`/users/${t.member.id}`, { client_gravatar: true })).body.user;
    assert.equal(user.avatar_url, url);
    assert.equal(user.avatar_version, 2);
    const state = (await api(t.member).post("/register", { fetch_event_types: ["realm_user"], client_gravatar: true })).body;
    assert.equal(state.avatar_source, "U");
    assert.equal(state.avatar_url, url);
    assert.equal(state.avatar_url_medium, url.replace(".png?", "-medium.png?"));
    assert.equal(state.realm_users.find((u: { user_id: number }) => u.user_id === t.member.id).avatar_url, url);

    const sent = await api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "hi" });
    expectSuccess(sent);
    const page = await api(t.member2).get("/messages", { anchor: "newest", num_before: 1, num_after: 0, client_gravatar: true });
    assert.equal(page.body.messages[0].avatar_url, url);
  });

  test("JPEG and GIF uploads are cropped square too; each upload moves the version on", async () => {
    const t = await freshRealm();
    for (const [i, part] of [
      { fileName: "photo.jpg", data: JPEG, type: "image/jpeg" },
      { fileName: "tiny.gif", data: GIF, type: "image/gif" },
    ].entries()) {
      const r = await upload(t.member, [part]);
      expectSuccess(r);
      assert.match(r.body.avatar_url, new RegExp(`version=${i + 2}$`));
      const small = await imageAt(r.body.avatar_url);
      assert.deepEqual([small.format, small.width, small.height], ["png", 100, 100]);
    }
  });

  test("everyone who can see the user hears of it; the other organization does not", async () => {
    const t = await freshRealm();
    const [q2, qOther] = [await queue(t.member2, ["realm_user"]), await queue(other.member, ["realm_user"])];
    const url = (await upload(t.member)).body.avatar_url;
    const [event] = await events(t.member2, q2);
    assert.deepEqual(event.person, {
      user_id: t.member.id,
      avatar_source: "U",
      avatar_url: url,
      avatar_url_medium: url.replace(".png?", "-medium.png?"),
      avatar_version: 2,
    });
    assert.equal(event.op, "update");
    assert.deepEqual(await events(other.member, qOther), []);
  });

  test("refusals: Zulip's errors, nothing changed", async () => {
    const t = await freshRealm();
    const cases: [Part[], string][] = [
      [[], "You must upload exactly one avatar."],
      [[png(), png()], "You must upload exactly one avatar."],
      [[{ fileName: "fake.png", data: "this is not a picture", type: "image/png" }], "Could not decode image; did you upload an image file?"],
      [[{ fileName: "notes.txt", data: "words", type: "text/plain" }], "Invalid image format"],
      [[png(Buffer.alloc(5 * 1024 * 1024 + 1, 1))], "Uploaded file is larger than the allowed limit of 5 MiB"],
    ];
    for (const [parts, msg] of cases) expectError(await upload(t.member, parts), msg);
    assert.deepEqual(await row(t.member.id), { avatar_source: "G", avatar_version: 1 });
  });

  test("avatar_changes_disabled refuses members (upload and delete) but not administrators", async () => {
    const t = await freshRealm();
    await setRealmProps(srv.app, t.realm.id, { avatar_changes_disabled: true });
    for (const u of [t.member, t.moderator, t.guest]) {
      expectError(await upload(u), "Avatar changes are disabled in this organization.");
      expectError(await api(u).delete("/users/me/avatar"), "Avatar changes are disabled in this organization.");
      assert.deepEqual(await row(u.id), { avatar_source: "G", avatar_version: 1 });
    }
    for (const u of [t.admin, t.owner]) {
      expectSuccess(await upload(u));
      expectSuccess(await api(u).delete("/users/me/avatar"));
    }
  });
});

describe("a new address", () => {
  test("moves a Gravatar with it, but leaves an uploaded avatar as it is", async () => {
    const t = await freshRealm();
    await setUserProp(srv.app.db, t.owner.id, "can_change_user_emails", true);
    const url = (await upload(t.member)).body.avatar_url;
    const q = await queue(t.owner, ["realm_user"]);
    expectSuccess(await api(t.owner).patch(`/users/${t.member.id}`, { new_email: "moved@example.com" }));
    expectSuccess(await api(t.owner).patch(`/users/${t.member2.id}`, { new_email: "moved2@example.com" }));
    const avatarUpdates = (await events(t.owner, q)).filter((e) => "avatar_url" in e.person);
    assert.deepEqual(
      avatarUpdates.map((e) => e.person.user_id),
      [t.member2.id],
    );
    assert.equal((await api(t.owner).get(`/users/${t.member.id}`)).body.user.avatar_url, url);
  });
});

describe("DELETE /users/me/avatar", () => {
  test("goes back to Gravatar with a new version, announced; a second delete changes nothing", async () => {
    const t = await freshRealm();
    await upload(t.member);
    const q = await queue(t.owner, ["realm_user"]);
    const r = await api(t.member).delete("/users/me/avatar");
    expectSuccess(r);
    assert.match(r.body.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=3$/);
    assert.deepEqual(await row(t.member.id), { avatar_source: "G", avatar_version: 3 });
    const [event] = await events(t.owner, q);
    assert.equal(event.person.avatar_source, "G");
    assert.equal(event.person.avatar_url_medium, r.body.avatar_url.replace("&version", "&s=500&version"));

    expectSuccess(await api(t.member).delete("/users/me/avatar"));
    assert.deepEqual(await row(t.member.id), { avatar_source: "G", avatar_version: 3 });
    assert.equal((await events(t.owner, q)).length, 1);
  });
});

describe("bots' avatars through PATCH /bots/{id}", () => {
  test("the owner and administrators may upload; others may not; the bot's administrators hear realm_bot", async () => {
    const t = await freshRealm();
    const q = await queue(t.owner, ["realm_bot", "realm_user"]);
    const r = await send(t.owner, "PATCH", `/bots/${t.bot.id}`, [png()]);
    expectSuccess(r);
    assert.match(r.body.avatar_url, /^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=2$/);
    const seen = await events(t.owner, q);
    assert.deepEqual(
      seen.find((e) => e.type === "realm_bot"),
      { type: "realm_bot", op: "update", bot: { user_id: t.bot.id, avatar_url: r.body.avatar_url }, id: seen.find((e) => e.type === "realm_bot")!.id },
    );
    assert.ok(seen.some((e) => e.type === "realm_user" && e.person.avatar_source === "U"));

    expectSuccess(await send(t.admin, "PATCH", `/bots/${t.bot.id}`, [png()]));
    expectError(await send(t.member, "PATCH", `/bots/${t.bot.id}`, [png()]), "Insufficient permission");
    expectError(await send(other.owner, "PATCH", `/bots/${t.bot.id}`, [png()]), "No such bot");
    expectError(await send(t.owner, "PATCH", `/bots/${t.bot.id}`, [png(), png()]), "You may only upload one file at a time");
    assert.deepEqual(await row(t.bot.id), { avatar_source: "U", avatar_version: 3 });
  });
});

describe("a bot created with POST /bots and a file", () => {
  test("starts with the uploaded avatar, announced with it", async () => {
    const t = await freshRealm();
    const q = await queue(t.owner, ["realm_bot"]);
    const r = await send(t.member, "POST", "/bots", [png()], { full_name: "Pictured Bot", short_name: "pictured" });
    expectSuccess(r);
    assert.match(r.body.avatar_url, /^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=1$/);
    assert.deepEqual(await row(r.body.user_id), { avatar_source: "U", avatar_version: 1 });
    assert.equal((await imageAt(r.body.avatar_url)).width, 100);
    const [added] = await events(t.owner, q);
    assert.equal(added.bot.avatar_url, r.body.avatar_url);
    expectError(await send(t.member, "POST", "/bots", [png(), png()], { full_name: "Two", short_name: "two" }), "You may only upload one file at a time");
  });
});

describe("GET /avatar/{user_id_or_email}", () => {
  test("redirects to the current avatar (medium too), passing the query on; needs a user", async () => {
    const t = await freshRealm();
    const url = (await upload(t.member)).body.avatar_url;
    const go = (path: string, u?: TestUser) => fetch(`${srv.url}${path}`, { redirect: "manual", headers: u ? { authorization: basicAuth(u) } : {} });
    let res = await go(`/avatar/${t.member.id}`, t.member2);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), url);
    res = await go(`/avatar/${encodeURIComponent(t.member.email)}/medium?s=50`, t.member2);
    assert.equal(res.headers.get("location"), `${url.replace(".png?", "-medium.png?")}&s=50`);
    // Another organization's user is no one here: a Gravatar of what was asked for.
    res = await go(`/avatar/${t.member.id}`, other.member);
    assert.match(res.headers.get("location")!, /^https:\/\/secure\.gravatar\.com\/avatar\//);
    res = await go(`/avatar/${t.member.id}`);
    assert.equal(res.status, 401);
    assert.equal((await res.json()).result, "error");
  });
});

describe("organization icon and logos", () => {
  test("administrators upload and remove them; register and realm update_dict events follow", async () => {
    const t = await freshRealm();
    const q = await queue(t.member, ["realm"]);
    const icon = await send(t.admin, "POST", "/realm/icon", [png()]);
    expectSuccess(icon);
    assert.equal(icon.body.icon_url, `/user_avatars/${t.realm.id}/realm/icon.png?version=2`);
    const iconImage = await imageAt(icon.body.icon_url);
    assert.deepEqual([iconImage.width, iconImage.height], [100, 100]);

    expectSuccess(await send(t.owner, "POST", "/realm/logo", [{ fileName: "wide.jpg", data: JPEG, type: "image/jpeg" }]));
    expectSuccess(await send(t.owner, "POST", "/realm/logo", [png()], { night: "true" }));
    const logo = await imageAt(`/user_avatars/${t.realm.id}/realm/logo.png?version=2`);
    assert.deepEqual([logo.width, logo.height], [71, 100]);
    const night = await imageAt(`/user_avatars/${t.realm.id}/realm/night_logo.png?version=2`);
    assert.deepEqual([night.width, night.height], [150, 100]);

    const state = (await api(t.member).post("/register", { fetch_event_types: ["realm"] })).body;
    assert.equal(state.realm_icon_source, "U");
    assert.equal(state.realm_icon_url, `/user_avatars/${t.realm.id}/realm/icon.png?version=2`);
    assert.equal(state.realm_logo_source, "U");
    assert.equal(state.realm_night_logo_source, "U");
    assert.equal(state.realm_night_logo_url, `/user_avatars/${t.realm.id}/realm/night_logo.png?version=2`);

    expectSuccess(await api(t.admin).delete("/realm/logo", { night: true }));
    const removed = await api(t.admin).delete("/realm/icon");
    expectSuccess(removed);
    assert.match(removed.body.icon_url, /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon$/);

    const seen = await events(t.member, q);
    assert.deepEqual(
      seen.map((e) => [e.op, e.property, Object.keys(e.data).sort()]),
      [
        ["update_dict", "icon", ["icon_source", "icon_url"]],
        ["update_dict", "logo", ["logo_source", "logo_url"]],
        ["update_dict", "night_logo", ["night_logo_source", "night_logo_url"]],
        ["update_dict", "night_logo", ["night_logo_source", "night_logo_url"]],
        ["update_dict", "icon", ["icon_source", "icon_url"]],
      ],
    );
    assert.equal(seen[3].data.night_logo_source, "D");
    assert.equal(seen[4].data.icon_source, "G");
    const after = (await api(t.member).post("/register", { fetch_event_types: ["realm"] })).body;
    assert.equal(after.realm_icon_source, "G");
    assert.equal(after.realm_night_logo_source, "D");
    assert.equal(after.realm_logo_source, "U");
  });

  test("everyone else is refused, before the file is looked at; refusals change nothing", async () => {
    const t = await freshRealm();
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      expectError(await send(u, "POST", "/realm/icon", [png()]), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
      expectError(await send(u, "POST", "/realm/logo", []), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
      expectError(await api(u).delete("/realm/icon"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    expectError(await send(t.admin, "POST", "/realm/icon", []), "You must upload exactly one icon.");
    expectError(await send(t.admin, "POST", "/realm/logo", [png(), png()]), "You must upload exactly one logo.");
    expectError(
      await send(t.admin, "POST", "/realm/logo", [{ fileName: "x.png", data: "nope", type: "image/png" }]),
      "Could not decode image; did you upload an image file?",
    );
    const state = (await api(t.member).post("/register", { fetch_event_types: ["realm"] })).body;
    assert.deepEqual([state.realm_icon_source, state.realm_logo_source, state.realm_night_logo_source], ["G", "D", "D"]);
  });
});
