/**
 * Moving between views and narrows. The URL hash is the place, in Zulip's format, so links,
 * pasted URLs, Back and Forward and reloads all arrive where they point.
 */
import { loadNarrow } from "./messages";
import { changed, findUser, model, type Message } from "./model";
import type { Narrow } from "./state/narrow";
import { messageHash, parseChannelsHash, parseHash, placeToHash, type Place } from "./state/hash";
import { followChannelsRoute, hideChannels } from "./views/channels/overlay";

export const resolvers = {
  channelByName: (name: string) => [...model.streams.values()].find((s) => s.name.toLowerCase() === name.toLowerCase())?.stream_id,
  userByEmail: (email: string) => findUser(email)?.user_id,
};

export const namer = {
  channelName: (id: number) => model.streams.get(id)?.name,
  userName: (id: number) => model.users.get(id)?.full_name,
};

/** The view an empty URL opens: the user's `web_home_view` (Zulip's default is the Inbox). */
export function homePlace(): Place {
  const home = model.settings.web_home_view;
  if (home === "recent_topics") return { view: "recent", narrow: [] };
  if (home === "all_messages") return { view: "narrow", narrow: [] };
  return { view: "inbox", narrow: [] };
}

/** The place in view, behind any overlay. */
let current: Place | undefined;

/** The place the URL names; an overlay's URL keeps the place behind it (the home view on a fresh load). */
export function placeFromLocation(): Place {
  if (parseChannelsHash(window.location.hash)) return current ?? homePlace();
  return parseHash(window.location.hash, resolvers) ?? homePlace();
}

/** Opens or closes the overlay the URL names. */
function followOverlay(): void {
  const route = parseChannelsHash(window.location.hash);
  if (route) followChannelsRoute(route);
  else hideChannels();
}

/** Shows a place, and the overlay the URL names over it, without touching the browser's history. */
export function show(place: Place): void {
  current = place;
  model.view = place.view;
  changed();
  if (place.view === "narrow") void loadNarrow(place.narrow, place.near);
  followOverlay();
}

export function pushHash(hash: string): void {
  if (window.location.hash !== hash) history.pushState(null, "", hash);
}

export function replaceHash(hash: string): void {
  if (window.location.hash !== hash) history.replaceState(null, "", hash);
}

export function goTo(place: Place): void {
  pushHash(placeToHash(place, namer));
  show(place);
}

export const go = (narrow: Narrow, near?: number) => goTo({ view: "narrow", narrow, near });

/** Closing an overlay returns the URL to the place behind it, as a new history entry (so Back reopens the overlay). */
export function leaveOverlay(): void {
  pushHash(placeToHash(current ?? homePlace(), namer));
}

/**
 * A link followed inside the page (a channel or message link in a message) arrives here too.
 * Leaving an overlay for the place already behind it keeps that place as it is (scrolled, loaded).
 */
window.addEventListener("popstate", () => {
  const place = placeFromLocation();
  if (current && placeToHash(place, namer) === placeToHash(current, namer)) followOverlay();
  else show(place);
});

/** A conversation's URL: a topic, or a direct-message conversation by its key. */
export function conversationHash(c: { streamId?: number; topic?: string; dm?: string }): string {
  const narrow: Narrow =
    c.dm !== undefined
      ? [{ operator: "dm", operand: c.dm.split(",").map(Number) }]
      : [
          { operator: "channel", operand: c.streamId! },
          { operator: "topic", operand: c.topic! },
        ];
  return placeToHash({ view: "narrow", narrow }, namer);
}

/** The message's address, as Zulip's "Copy link to message" gives it. */
export function messageUrl(m: Message): string {
  const dmUserIds = Array.isArray(m.display_recipient) ? m.display_recipient.map((r) => r.id) : undefined;
  return `${location.origin}/${messageHash({ ...m, dmUserIds }, model.me.user_id, namer)}`;
}
