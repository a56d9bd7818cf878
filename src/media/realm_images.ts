/**
 * An organization's icon and its day and night logos: where they are stored, the URLs Zulip
 * gives for them, and what register and the realm events say of them. Their source and version
 * are kept in the organization's settings JSON (`icon_source`, `icon_version`, ...).
 */
import { gravatarHash } from "./avatars.js";

export type RealmImageKind = "icon" | "logo" | "night_logo";

export const ICON_FROM_GRAVATAR = "G";
export const LOGO_DEFAULT = "D";
export const IMAGE_UPLOADED = "U";

/** The settings that record each image, as Zulip's Realm model names them. */
interface RealmImageProps {
  icon_source?: string;
  icon_version?: number;
  logo_source?: string;
  logo_version?: number;
  night_logo_source?: string;
  night_logo_version?: number;
}

interface RealmLike {
  id: number;
  string_id: string;
  props: object;
}

const propsOf = (realm: RealmLike) => realm.props as RealmImageProps;

export function realmImageSource(realm: RealmLike, kind: RealmImageKind): string {
  return propsOf(realm)[`${kind}_source`] ?? (kind === "icon" ? ICON_FROM_GRAVATAR : LOGO_DEFAULT);
}

export function realmImageVersion(realm: RealmLike, kind: RealmImageKind): number {
  return propsOf(realm)[`${kind}_version`] ?? 1;
}

/** The stored file of an image: one name per kind, the version in the URL for caches. */
export const realmImageKey = (realmId: number, kind: RealmImageKind) => `avatars/${realmId}/realm/${kind}.png`;
export const REALM_IMAGE_FILE = /^(icon|logo|night_logo)\.png$/;

const DEFAULT_LOGO = "/static/images/logo/zulip-org-logo.svg?version=0";

/** The URL of the image, relative to the server, as Zulip's get_realm_icon_url / get_realm_logo_url give it. */
export function realmImageUrl(realm: RealmLike, kind: RealmImageKind): string {
  if (realmImageSource(realm, kind) === IMAGE_UPLOADED) {
    return `/user_avatars/${realm.id}/realm/${kind}.png?version=${realmImageVersion(realm, kind)}`;
  }
  if (kind === "icon") return `https://secure.gravatar.com/avatar/${gravatarHash(realm.string_id)}?d=identicon`;
  return DEFAULT_LOGO;
}

/** The `data` of a realm update_dict event for the image (property `icon`, `logo` or `night_logo`). */
export function realmImageData(realm: RealmLike, kind: RealmImageKind): Record<string, string> {
  return { [`${kind}_url`]: realmImageUrl(realm, kind), [`${kind}_source`]: realmImageSource(realm, kind) };
}

/** The register fields of all three images; URLs on this server are relative, as Zulip gives them. */
export function realmImageState(realm: RealmLike): Record<string, string> {
  const state: Record<string, string> = {};
  for (const kind of ["icon", "logo", "night_logo"] as const) {
    for (const [key, value] of Object.entries(realmImageData(realm, kind))) state[`realm_${key}`] = value;
  }
  return state;
}

/** The settings to store when an image is uploaded or removed: the source, and a new version. */
export function realmImageChange(realm: RealmLike, kind: RealmImageKind, uploaded: boolean): RealmImageProps {
  return {
    [`${kind}_source`]: uploaded ? IMAGE_UPLOADED : kind === "icon" ? ICON_FROM_GRAVATAR : LOGO_DEFAULT,
    [`${kind}_version`]: realmImageVersion(realm, kind) + 1,
  };
}
