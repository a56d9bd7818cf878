/** The `realm_user` section: the organization's users, the system bots, and the caller's own account. */
import { registerStateSection, type State, type StateContext } from "../state.js";
import type { Event } from "../shaping.js";
import { formatUser } from "../../format/users.js";
import { avatarUrl } from "../../media/avatars.js";
import { Role, isAdmin, isGuest, isOwner } from "../../domain/roles.js";
import { accessibleUserIds, groupsOf, realmUserRows } from "../../actions/users.js";
import { profileDataByUser } from "../../store/custom_profile_fields.js";
import type { UserRow } from "../../store/users.js";
import { RawJson } from "../../http/raw_json.js";

type ApiUser = Record<string, unknown>;
const RAW_USERS = "_raw_users";

/** What a user who may not see someone gets in that person's place. */
function inaccessibleUser(ctx: StateContext, userId: number): ApiUser {
  const base = ctx.app.config.externalUrl;
  return {
    email: `user${userId}@${ctx.app.config.fakeEmailDomain}`,
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    role: 400,
    full_name: "Unknown user",
    timezone: "",
    is_active: true,
    date_joined: new Date(ctx.realm.date_created * 1000).toISOString(),
    delivery_email: null,
    avatar_url: `${base}/static/images/unknown-user-avatar.png`,
    profile_data: {},
  };
}

/**
 * The users of an organization as a viewer of one role sees them (with or without gravatar URLs),
 * serialized one by one, without is_active: the same for every such viewer but in their own
 * entry, so it is built once per change to the users rather than on every POST /register.
 */
export interface SerializedUsers {
  /** In ascending order. */
  ids: number[];
  active: boolean[];
  json: string[];
  /**
   * Both lists as UTF-8 JSON arrays, and the byte range of each entry in its list: replacing one
   * is a splice, and the rest goes into every answer without being encoded again.
   */
  lists?: { active: Buffer; inactive: Buffer; start: number[]; end: number[] };
}

/** The JSON arrays of the active and the deactivated entries, with each entry's byte range in its array. */
function joinLists(users: SerializedUsers): NonNullable<SerializedUsers["lists"]> {
  const start: number[] = [];
  const end: number[] = [];
  const parts = { active: ["["], inactive: ["["] };
  const length = { active: 1, inactive: 1 };
  users.ids.forEach((_, i) => {
    const list = users.active[i] ? "active" : "inactive";
    if (parts[list].length > 1) {
      parts[list].push(",");
      length[list] += 1;
    }
    start.push(length[list]);
    parts[list].push(users.json[i]);
    length[list] += Buffer.byteLength(users.json[i]);
    end.push(length[list]);
  });
  const encode = (list: string[]) => Buffer.from(list.join("") + "]");
  return { active: encode(parts.active), inactive: encode(parts.inactive), start, end };
}

async function serializedUsers(ctx: StateContext, users: readonly UserRow[]): Promise<SerializedUsers> {
  const { app, realm, user: me, options } = ctx;
  const key = `${realm.id}:${me.role}:${options.clientGravatar ? 1 : 0}`;
  const loaded = await app.caches.serializedUsers.get(key, app.db, async () => {
    const profiles = await profileDataByUser(app.db, realm.id);
    // Anyone of the viewer's role but the viewer, whose own entry is made apart.
    const viewer = { ...me, id: -1 };
    const out: SerializedUsers = { ids: [], active: [], json: [] };
    for (const u of users) {
      if (u.is_system_bot === 1) continue;
      const { is_active: active, ...rest } = formatUser(u, viewer, {
        clientGravatar: options.clientGravatar,
        profileData: u.is_bot === 1 ? undefined : (profiles.get(u.id) ?? {}),
      });
      out.ids.push(u.id);
      out.active.push(active === true);
      out.json.push(JSON.stringify(rest));
    }
    out.lists = joinLists(out);
    return out;
  });
  return loaded!;
}

/**
 * The user list while POST /register builds its state: serialized entries, and the users that
 * events queued meanwhile (or the caller's own entry) changed, as objects.
 */
class UserEntries {
  private readonly changed = new Map<number, ApiUser | null>();

  constructor(private readonly base: SerializedUsers) {}

  /** Where `id` is among the serialized entries (they are in id order), or -1. */
  private position(id: number): number {
    const ids = this.base.ids;
    let low = 0;
    let high = ids.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (ids[mid] === id) return mid;
      if (ids[mid] < id) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }

  get(id: number): ApiUser | undefined {
    if (this.changed.has(id)) return this.changed.get(id) ?? undefined;
    const i = this.position(id);
    if (i < 0) return undefined;
    const user: ApiUser = { ...(JSON.parse(this.base.json[i]) as ApiUser), is_active: this.base.active[i] };
    this.changed.set(id, user);
    return user;
  }

  set(id: number, user: ApiUser): void {
    this.changed.set(id, user);
  }

  delete(id: number): void {
    this.changed.set(id, null);
  }

  /** Active and deactivated users, each list in id order, as JSON arrays. */
  lists(): { active: RawJson; inactive: RawJson } {
    const edits = this.inPlaceEdits();
    if (edits) {
      const lists = this.base.lists!;
      const out = { active: [] as Buffer[], inactive: [] as Buffer[] };
      const done = { active: 0, inactive: 0 };
      for (const { i, json } of edits.sort((a, b) => a.i - b.i)) {
        const list = this.base.active[i] ? "active" : "inactive";
        out[list].push(lists[list].subarray(done[list], lists.start[i]), Buffer.from(json));
        done[list] = lists.end[i];
      }
      const rest = (list: "active" | "inactive") => new RawJson([...out[list], lists[list].subarray(done[list])]);
      return { active: rest("active"), inactive: rest("inactive") };
    }
    const entries: { id: number; active: boolean; json: string }[] = [];
    this.base.ids.forEach((id, i) => {
      if (!this.changed.has(id)) entries.push({ id, active: this.base.active[i], json: this.base.json[i] });
    });
    for (const [id, user] of this.changed) {
      if (!user) continue;
      const { is_active: active, ...rest } = user;
      entries.push({ id, active: active === true, json: JSON.stringify(rest) });
    }
    entries.sort((a, b) => a.id - b.id);
    const list = (active: boolean) => new RawJson(`[${entries.filter((e) => e.active === active).map((e) => e.json).join(",")}]`);
    return { active: list(true), inactive: list(false) };
  }

  /** The changes as replacements of serialized entries, when each keeps its place (the usual case). */
  private inPlaceEdits(): { i: number; json: string }[] | undefined {
    if (!this.base.lists) return undefined;
    const edits: { i: number; json: string }[] = [];
    for (const [id, user] of this.changed) {
      const i = this.position(id);
      if (!user || i < 0) return undefined;
      const { is_active: active, ...rest } = user;
      if ((active === true) !== this.base.active[i]) return undefined;
      edits.push({ i, json: JSON.stringify(rest) });
    }
    return edits;
  }
}

async function realmUserState(ctx: StateContext): Promise<State> {
  const { app, realm, user: me, options } = ctx;
  const users = await realmUserRows(app, realm.id);
  const accessible = await accessibleUserIds(app, { realm, user: me });
  let entries: UserEntries;
  if (!accessible) {
    entries = new UserEntries(await serializedUsers(ctx, users));
    const own = entries.get(me.id);
    if (own) entries.set(me.id, { ...own, delivery_email: me.delivery_email });
  } else {
    // Who a guest may see differs from guest to guest: nothing here is shared.
    const profiles = await profileDataByUser(app.db, realm.id);
    entries = new UserEntries({ ids: [], active: [], json: [] });
    for (const u of users) {
      if (u.is_system_bot === 1) continue;
      if (!accessible.has(u.id)) {
        if (!options.capabilities.user_list_incomplete) entries.set(u.id, inaccessibleUser(ctx, u.id));
        continue;
      }
      entries.set(
        u.id,
        formatUser(u, me, { clientGravatar: options.clientGravatar, profileData: u.is_bot === 1 ? undefined : (profiles.get(u.id) ?? {}) }),
      );
    }
  }
  const crossRealmBots = users
    .filter((u) => u.is_system_bot === 1)
    .map((u) => ({ ...formatUser(u, me), is_system_bot: true }));

  const groups = await groupsOf(app, app.db, me);
  const member = (setting: string) => groups.has(realm.groupSettings[setting]);
  const canCreatePrivate = member("can_create_private_channel_group");
  const canCreatePublic = member("can_create_public_channel_group");
  const canCreateWebPublic = member("can_create_web_public_channel_group");
  return {
    [RAW_USERS]: entries,
    cross_realm_bots: crossRealmBots,
    avatar_source: me.avatar_source,
    avatar_url_medium: avatarUrl(me, true),
    avatar_url: avatarUrl(me),
    can_create_private_streams: canCreatePrivate,
    can_create_public_streams: canCreatePublic,
    can_create_web_public_streams: canCreateWebPublic,
    can_create_streams: canCreatePrivate || canCreatePublic || canCreateWebPublic,
    can_subscribe_other_users: member("can_add_subscribers_group"),
    can_invite_others_to_realm: member("can_invite_users_group"),
    is_admin: isAdmin(me.role),
    is_owner: isOwner(me.role),
    is_moderator: me.role === Role.MODERATOR,
    is_guest: isGuest(me.role),
    user_id: me.id,
    email: me.email,
    delivery_email: me.delivery_email,
    full_name: me.full_name,
  };
}

/** Fields of a user object a realm_user update may carry, besides those needing translation. */
function applyUserUpdate(user: ApiUser, person: ApiUser): void {
  const { user_id: _, custom_profile_field, new_email, avatar_source: _source, avatar_url_medium: _medium, ...changes } = person;
  if (new_email !== undefined) changes.email = new_email;
  if (typeof changes.role === "number") {
    changes.is_admin = isAdmin(changes.role);
    changes.is_owner = isOwner(changes.role);
    changes.is_guest = isGuest(changes.role);
  }
  Object.assign(user, changes);
  if (custom_profile_field && user.profile_data) {
    const field = custom_profile_field as { id: number; value: unknown; rendered_value?: string };
    const profile = user.profile_data as Record<string, unknown>;
    if (field.value === null) delete profile[String(field.id)];
    else profile[String(field.id)] = "rendered_value" in field ? { value: field.value, rendered_value: field.rendered_value } : { value: field.value };
  }
}

function applyRealmUser(state: State, event: Event, ctx: StateContext): void {
  const entries = state[RAW_USERS] as UserEntries;
  const person = event.person as ApiUser;
  const id = Number(person.user_id);
  if (event.op === "add") {
    const added: ApiUser = { ...person, is_active: true };
    if (ctx.options.clientGravatar && String(added.avatar_url ?? "").includes("gravatar.com")) added.avatar_url = null;
    if (!added.is_bot && !("profile_data" in added)) added.profile_data = {};
    entries.set(id, added);
  } else if (event.op === "remove") {
    // The user is no longer accessible: a placeholder takes their place, or nothing at all.
    if (ctx.options.capabilities.user_list_incomplete) entries.delete(id);
    else entries.set(id, inaccessibleUser(ctx, id));
  } else if (event.op === "update" && entries.get(id)) {
    applyUserUpdate(entries.get(id)!, person);
    if (id === ctx.user.id) {
      for (const field of ["full_name", "delivery_email", "avatar_source", "avatar_url_medium", "avatar_url"]) {
        if (field in person) state[field] = person[field];
      }
      if ("new_email" in person) state.email = person.new_email;
      if (typeof person.role === "number") {
        state.is_admin = isAdmin(person.role);
        state.is_owner = isOwner(person.role);
        state.is_moderator = person.role === Role.MODERATOR;
        state.is_guest = isGuest(person.role);
      }
    }
  }
}

registerStateSection({
  name: "realm_user",
  fetchTypes: ["realm_user"],
  eventTypes: ["realm_user"],
  fetch: realmUserState,
  apply: applyRealmUser,
  finish(state) {
    const { active, inactive } = (state[RAW_USERS] as UserEntries).lists();
    state.realm_users = active;
    state.realm_non_active_users = inactive;
    delete state[RAW_USERS];
  },
});
