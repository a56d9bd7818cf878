/**
 * What rendering needs to know about the organization: who can be mentioned, which channels
 * can be linked, custom emoji, linkifiers, settings. Rendering itself is synchronous and pure;
 * `renderContextFor` gathers this data beforehand.
 */
import { listLinkifiers } from "../store/linkifiers.js";
import { activeRealmEmojiFiles } from "../store/realm_emoji.js";
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../domain/limits.js";
import type { CamoConfig } from "./camo.js";
import { renderCamo } from "../media/image_proxy.js";
import type { Linkifier } from "./linkifiers.js";
import { emojiUrl as realmEmojiUrl } from "../domain/custom_emoji.js";
import { ReadCache } from "../store/read_cache.js";
import type { TableVersions } from "../store/table_versions.js";

export interface RenderUser {
  id: number;
  fullName: string;
  isActive: boolean;
}

export interface RenderGroup {
  id: number;
  name: string;
  deactivated: boolean;
  /** What the mention shows, when not the name (system groups show their description). */
  displayName?: string;
}

export interface RenderChannel {
  id: number;
  name: string;
}

export interface RenderContext {
  /** The organization's URL (no trailing slash); links into it become relative. */
  realmUrl?: string;
  users?: RenderUser[];
  groups?: RenderGroup[];
  channels?: RenderChannel[];
  /** Active custom emoji by name: the image URL. */
  realmEmoji?: Record<string, string>;
  /** In the organization's order. */
  linkifiers?: Linkifier[];
  /** The sender's setting: `:)` becomes an emoji. */
  translateEmoticons?: boolean;
  /** Inline previews of image and video links (the organization's `inline_image_preview`). */
  inlineImagePreview?: boolean;
  camo?: CamoConfig;
  /** Shown for the topic with an empty name. */
  emptyTopicDisplayName?: string;
  /** The latest message of a topic the sender can see, for `/with/` in topic links. */
  topicLatestMessageId?: (channelId: number, topic: string) => number | undefined;
}

const SYSTEM_GROUP_DISPLAY_NAMES: Record<string, string> = {
  "role:owners": "Owners",
  "role:administrators": "Administrators",
  "role:moderators": "Moderators",
  "role:fullmembers": "Full members",
  "role:members": "Members",
  "role:everyone": "Everyone",
  "role:internet": "Everyone on the internet",
  "role:nobody": "Nobody",
};

/**
 * The organization's part of a render context: who can be mentioned, which channels linked,
 * custom emoji and linkifiers. The same for every message until one of those tables is written,
 * so each part is kept in memory by itself: a write to one table (a new channel, a renamed user)
 * reloads only that part, not every account of a large organization.
 */
export interface RenderDataCaches {
  users: ReadCache<RenderUser[]>;
  groups: ReadCache<RenderGroup[]>;
  channels: ReadCache<RenderChannel[]>;
  realmEmoji: ReadCache<Record<string, string>>;
  linkifiers: ReadCache<Linkifier[]>;
}

export function createRenderDataCaches(versions: TableVersions, maxOrganizations: number): RenderDataCaches {
  return {
    users: new ReadCache(versions, ["users"], maxOrganizations),
    groups: new ReadCache(versions, ["user_groups"], maxOrganizations),
    channels: new ReadCache(versions, ["streams"], maxOrganizations),
    realmEmoji: new ReadCache(versions, ["realm_emoji"], maxOrganizations),
    linkifiers: new ReadCache(versions, ["realm_linkifiers"], maxOrganizations),
  };
}

async function loadUsers(db: Executor, realmId: number): Promise<RenderUser[]> {
  const rows = await db.selectFrom("users").select(["id", "full_name", "is_active"]).where("realm_id", "=", realmId).orderBy("id").execute();
  return rows.map((u) => ({ id: u.id, fullName: u.full_name, isActive: u.is_active === 1 }));
}

async function loadGroups(db: Executor, realmId: number): Promise<RenderGroup[]> {
  const rows = await db
    .selectFrom("user_groups")
    .select(["id", "name", "deactivated", "is_system_group", "description"])
    .where("realm_id", "=", realmId)
    .where("name", "is not", null)
    .orderBy("id")
    .execute();
  return rows.map((g) => ({
    id: g.id,
    name: g.name!,
    deactivated: g.deactivated === 1,
    displayName: g.is_system_group ? (SYSTEM_GROUP_DISPLAY_NAMES[g.name!] ?? g.description) : undefined,
  }));
}

async function loadChannels(db: Executor, realmId: number): Promise<RenderChannel[]> {
  const rows = await db.selectFrom("streams").select(["id", "name"]).where("realm_id", "=", realmId).where("is_archived", "=", 0).orderBy("id").execute();
  return rows.map((c) => ({ id: c.id, name: c.name }));
}

async function loadRealmEmoji(db: Executor, realmId: number): Promise<Record<string, string>> {
  const rows = await activeRealmEmojiFiles(db, realmId);
  return Object.fromEntries(rows.map((e) => [e.name, realmEmojiUrl(realmId, e.file_name)]));
}

/** The organization's linkifiers in order, from memory until they change. */
export async function realmLinkifiers(app: AppContext, realmId: number, db: Executor = app.db): Promise<Linkifier[]> {
  return (await app.caches.renderData.linkifiers.get(String(realmId), db, () => listLinkifiers(db, realmId)))!;
}

/**
 * Contexts already built from an organization's cached users, by the settings that vary: the
 * lookups and inline patterns are kept per context object (patternsFor), so handing back the
 * same object while nothing changed spares rebuilding them, for every user of a large
 * organization, on every message.
 */
const builtContexts = new WeakMap<readonly RenderUser[], Map<string, RenderContext>>();

/**
 * The context for rendering what `sender` writes in `realm` (the sender's `translate_emoticons`
 * applies), with the organization's linkifiers in order. Read inside a transaction that wrote
 * its tables, the data includes uncommitted writes, so it is used but not kept.
 */
export async function renderContextFor(
  app: AppContext,
  realm: Realm,
  sender: UserRow | null,
  db: Executor = app.db,
): Promise<RenderContext> {
  const { externalUrl } = app.config;
  const senderProps = sender ? (JSON.parse(sender.props) as { translate_emoticons?: boolean }) : {};
  const caches = app.caches.renderData;
  const key = String(realm.id);
  const [users, groups, channels, realmEmoji, linkifiers] = await Promise.all([
    caches.users.get(key, db, () => loadUsers(db, realm.id)),
    caches.groups.get(key, db, () => loadGroups(db, realm.id)),
    caches.channels.get(key, db, () => loadChannels(db, realm.id)),
    caches.realmEmoji.get(key, db, () => loadRealmEmoji(db, realm.id)),
    realmLinkifiers(app, realm.id, db),
  ]);
  const realmUrl = externalUrl.replace(/\/+$/, "");
  const camo = renderCamo(app);
  const inlineImagePreview = realm.props.inline_image_preview !== false;
  const translateEmoticons = senderProps.translate_emoticons === true;
  const variant = `${inlineImagePreview}:${translateEmoticons}:${realmUrl}:${camo.url}`;
  let variants = builtContexts.get(users!);
  if (!variants) builtContexts.set(users!, (variants = new Map()));
  const built = variants.get(variant);
  if (built && built.groups === groups && built.channels === channels && built.realmEmoji === realmEmoji && built.linkifiers === linkifiers) {
    return built;
  }
  const ctx: RenderContext = {
    users,
    groups,
    channels,
    realmEmoji,
    linkifiers,
    realmUrl,
    camo,
    inlineImagePreview,
    emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
    translateEmoticons,
  };
  variants.set(variant, ctx);
  return ctx;
}
