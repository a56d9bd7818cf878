/** Personal left-sidebar views: which fragments are Zulip's built-in views, and how views look in the API. */
import { badRequest } from "../http/errors.js";

/** The built-in views; they keep Zulip's name, so a configuration of one carries none. */
export const BUILT_IN_VIEW_FRAGMENTS: readonly string[] = [
  "inbox",
  "recent",
  "feed",
  "drafts",
  "narrow/has/reaction/sender/me",
  "narrow/is/mentioned",
  "narrow/is/starred",
];

/** Zulip stores both in 128-character columns; longer values cannot be stored. */
export const NAVIGATION_VIEW_LIMITS = { fragmentMaxLength: 128, nameMaxLength: 128 } as const;

export interface ApiNavigationView {
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

export const isBuiltInView = (fragment: string) => BUILT_IN_VIEW_FRAGMENTS.includes(fragment);

const builtInNamed = () => badRequest("Built-in views cannot have a custom name.");

/** A new view: built-in ones must not be named, custom ones must be. */
export function checkNewViewName(fragment: string, name: string | undefined): void {
  if (isBuiltInView(fragment)) {
    if (name !== undefined) throw builtInNamed();
  } else if (!name) {
    throw badRequest("Custom views must have a valid name.");
  }
}

/** Renaming is refused for built-in views. */
export function checkViewRename(fragment: string, name: string | undefined): void {
  if (name !== undefined && isBuiltInView(fragment)) throw builtInNamed();
}
