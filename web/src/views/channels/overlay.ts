/**
 * Where the channels overlay stands: closed or open on a tab, with a channel's settings or the
 * creation form beside the list. Each move is a URL in Zulip's format (`#channels/all`,
 * `#channels/new`, `#channels/ID/name/general`), so Back, Forward and pasted URLs reach it
 * through `followChannelsRoute`. The overlay re-renders with the model.
 */
import { changed, model } from "../../model";
import { leaveOverlay, namer, pushHash, replaceHash } from "../../navigate";
import { channelsHash, type ChannelSection, type ChannelsRoute } from "../../state/hash";

export type Tab = "subscribed" | "all";
export type Pane = { kind: "none" } | { kind: "channel"; id: number; section: ChannelSection } | { kind: "create" };

export const overlay = {
  open: false,
  tab: "subscribed" as Tab,
  pane: { kind: "none" } as Pane,
};

function route(): ChannelsRoute {
  const { pane, tab } = overlay;
  if (pane.kind === "create") return { tab: "new" };
  if (pane.kind === "channel") return { tab: "channel", id: pane.id, section: pane.section };
  return { tab };
}

function place(tab: Tab, pane: Pane): void {
  overlay.open = true;
  overlay.tab = tab;
  overlay.pane = pane;
  changed();
}

/** Opens the overlay (or moves it) to a tab and a pane, as a new history entry. */
export function openChannels(tab: Tab, pane: Pane = { kind: "none" }): void {
  place(tab, pane);
  pushHash(channelsHash(route(), namer));
}

export const openChannelSettings = (id: number) => openChannels("subscribed", { kind: "channel", id, section: "general" });
export const openCreateChannel = () => openChannels("all", { kind: "create" });

/** Shows what a URL names (Back, Forward, a pasted URL) without adding to the history. */
export function followChannelsRoute(r: ChannelsRoute): void {
  if (r.tab === "subscribed" || r.tab === "all") return place(r.tab, { kind: "none" });
  // Opened from a URL, the list beside a channel is the one that holds it.
  const tab = overlay.open ? overlay.tab : r.tab === "channel" && model.subs.has(r.id) ? "subscribed" : "all";
  place(tab, r.tab === "channel" ? { kind: "channel", id: r.id, section: r.section } : { kind: "create" });
}

/** Closes the overlay where the URL has already moved on (a followed link, Back). */
export function hideChannels(): void {
  if (!overlay.open) return;
  overlay.open = false;
  overlay.pane = { kind: "none" };
  changed();
}

/** Closes the overlay, returning the URL to the view behind it. */
export function closeChannels(): void {
  hideChannels();
  leaveOverlay();
}

export const showPane = (pane: Pane) => openChannels(overlay.tab, pane);

/** The pane following the keyboard through the list: the URL follows too, without an entry per row. */
export function followPane(pane: Pane): void {
  place(overlay.tab, pane);
  replaceHash(channelsHash(route(), namer));
}

/** A tab is a list of its own: the pane beside it closes. */
export const showTab = (tab: Tab) => openChannels(tab);
