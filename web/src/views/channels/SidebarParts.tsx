/**
 * The channels' entry points in the left sidebar: Browse and "+" by the Channels heading, and a
 * "⋮" on each channel's row for its menu (settings, pin, mute, unsubscribe).
 */
import { useState } from "preact/hooks";
import type { Subscription } from "../../model";
import { keepEnter, MenuItem, MenuSeparator, Popover, useAction } from "../../components/Popover";
import { creatablePrivacies, setProperty, unsubscribe } from "./channelInfo";
import { BrowseIcon } from "./icons";
import { openChannels, openChannelSettings, openCreateChannel } from "./overlay";
import "../feed/menus.css";
import "./channels.css";

export function ChannelsHeading() {
  return (
    <div class="sidebar-channels-heading">
      <h2>Channels</h2>
      <button type="button" class="sidebar-icon-button" aria-label="Browse channels" title="Browse channels" onClick={() => openChannels("all")}>
        <BrowseIcon />
      </button>
      {creatablePrivacies().length > 0 && (
        <button type="button" class="sidebar-icon-button" aria-label="Create a channel" title="Create a channel" onClick={openCreateChannel}>
          +
        </button>
      )}
    </div>
  );
}

export function ChannelRowMenu({ sub }: { sub: Subscription }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const [confirming, setConfirming] = useState(false);
  const close = (refocus = false) => {
    if (refocus) anchor?.focus();
    setAnchor(null);
    setConfirming(false);
  };
  const { busy, error, run } = useAction(() => close(true));
  const id = sub.stream_id;
  return (
    <>
      <button
        type="button"
        class="channel-menu-button"
        aria-label={`Menu of ${sub.name}`}
        aria-haspopup="menu"
        aria-expanded={!!anchor}
        onKeyDown={keepEnter}
        onClick={(e) => setAnchor(anchor ? null : e.currentTarget)}
      >
        ⋮
      </button>
      {anchor && (
        <Popover
          anchor={anchor}
          label={`${sub.name} channel`}
          onClose={close}
          error={error}
          busy={busy}
          note={confirming ? "A private channel: you will need an invitation to rejoin." : undefined}
        >
          <MenuItem
            onSelect={() => {
              close();
              openChannelSettings(id);
            }}
          >
            Channel settings
          </MenuItem>
          <MenuSeparator />
          <MenuItem disabled={busy} onSelect={() => void run(() => setProperty(id, "pin_to_top", !sub.pin_to_top))}>
            {sub.pin_to_top ? "Unpin from top" : "Pin to top"}
          </MenuItem>
          <MenuItem disabled={busy} onSelect={() => void run(() => setProperty(id, "is_muted", !sub.is_muted))}>
            {sub.is_muted ? "Unmute channel" : "Mute channel"}
          </MenuItem>
          <MenuSeparator />
          <MenuItem danger disabled={busy} onSelect={() => (sub.invite_only && !confirming ? setConfirming(true) : void run(() => unsubscribe(sub.name)))}>
            {confirming ? "Confirm unsubscribe" : "Unsubscribe"}
          </MenuItem>
        </Popover>
      )}
    </>
  );
}
