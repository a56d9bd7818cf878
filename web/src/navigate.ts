/**
 * Moving between views and narrows. The URL hash is the place, in Zulip's format, so links,
 * pasted URLs, Back and Forward and reloads all arrive where they point.
 */
import { loadNarrow } from "./messages";
import { changed, findUser, model, type Message } from "./model";
import type { Narrow } from "./state/narrow";
import { messageHash, parseHash, placeToHash, type Place } from "./state/hash";

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

export function placeFromLocation(): Place {
  return parseHash(window.location.hash, resolvers) ?? homePlace();
}

/** Shows a place without touching the browser's history. */
export function show(place: Place): void {
  model.view = place.view;
  changed();
  if (place.view === "narrow") void loadNarrow(place.narrow, place.near);
}

export function goTo(place: Place): void {
  const hash = placeToHash(place, namer);
  if (window.location.hash !== hash) history.pushState(null, "", hash);
  show(place);
}

export const go = (narrow: Narrow, near?: number) => goTo({ view: "narrow", narrow, near });

/** A link followed inside the page (a channel or message link in a message) arrives here too. */
window.addEventListener("popstate", () => show(placeFromLocation()));

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
