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
import type { Linkifier } from "./linkifiers.js";
import { emojiUrl as realmEmojiUrl } from "../domain/custom_emoji.js";

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
 * so it is kept in memory (`AppContext.caches.renderData`).
 */
export interface RealmRenderData {
  users: RenderUser[];
  groups: RenderGroup[];
  channels: RenderChannel[];
  realmEmoji: Record<string, string>;
  linkifiers: Linkifier[];
}

/** The tables a RealmRenderData is read from. */
export const RENDER_DATA_TABLES = ["users", "user_groups", "streams", "realm_emoji", "realm_linkifiers"] as const;

async function loadRealmRenderData(db: Executor, realmId: number): Promise<RealmRenderData> {
  const [users, groups, channels, emoji, linkifiers] = await Promise.all([
    db.selectFrom("users").select(["id", "full_name", "is_active"]).where("realm_id", "=", realmId).orderBy("id").execute(),
    db
      .selectFrom("user_groups")
      .select(["id", "name", "deactivated", "is_system_group", "description"])
      .where("realm_id", "=", realmId)
      .where("name", "is not", null)
      .orderBy("id")
      .execute(),
    db
      .selectFrom("streams")
      .select(["id", "name"])
      .where("realm_id", "=", realmId)
      .where("is_archived", "=", 0)
      .orderBy("id")
      .execute(),
    activeRealmEmojiFiles(db, realmId),
    listLinkifiers(db, realmId),
  ]);
  return {
    users: users.map((u) => ({ id: u.id, fullName: u.full_name, isActive: u.is_active === 1 })),
    groups: groups.map((g) => ({
      id: g.id,
      name: g.name!,
      deactivated: g.deactivated === 1,
      displayName: g.is_system_group ? (SYSTEM_GROUP_DISPLAY_NAMES[g.name!] ?? g.description) : undefined,
    })),
    channels: channels.map((c) => ({ id: c.id, name: c.name })),
    realmEmoji: Object.fromEntries(emoji.map((e) => [e.name, realmEmojiUrl(realmId, e.file_name)])),
    linkifiers,
  };
}

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
  const { camoUrl, camoKey, externalUrl } = app.config;
  const senderProps = sender ? (JSON.parse(sender.props) as { translate_emoticons?: boolean }) : {};
  const data = (await app.caches.renderData.get(String(realm.id), db, () => loadRealmRenderData(db, realm.id)))!;
  return {
    ...data,
    realmUrl: externalUrl.replace(/\/+$/, ""),
    camo: camoUrl && camoKey ? { url: camoUrl, key: camoKey } : undefined,
    inlineImagePreview: realm.props.inline_image_preview !== false,
    emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
    translateEmoticons: senderProps.translate_emoticons === true,
  };
}
