/**
 * Where the channels overlay stands: closed or open on a tab, with a channel's settings or the
 * creation form beside the list. The sidebar opens it; the overlay re-renders with the model.
 */
import { changed } from "../../model";

export type Tab = "subscribed" | "all";
export type Pane = { kind: "none" } | { kind: "channel"; id: number } | { kind: "create" };

export const overlay = {
  open: false,
  tab: "subscribed" as Tab,
  pane: { kind: "none" } as Pane,
};

/** Opens the overlay (or moves it) to a tab and a pane. */
export function openChannels(tab: Tab, pane: Pane = { kind: "none" }): void {
  overlay.open = true;
  overlay.tab = tab;
  overlay.pane = pane;
  changed();
}

export const openChannelSettings = (id: number) => openChannels("subscribed", { kind: "channel", id });
export const openCreateChannel = () => openChannels("all", { kind: "create" });

export function closeChannels(): void {
  overlay.open = false;
  overlay.pane = { kind: "none" };
  changed();
}

export function showPane(pane: Pane): void {
  overlay.pane = pane;
  changed();
}

export function showTab(tab: Tab): void {
  overlay.tab = tab;
  changed();
}
