/**
 * The channels' entry points in the left sidebar: Browse and "+" by the Channels heading, and a
 * "⋮" on each channel's row for its menu (settings, pin, mute, unsubscribe).
 */
import { useState } from "preact/hooks";
import type { Subscription } from "../../model";
import { MenuButton, MenuItem, MenuSeparator, Popover, useAction, useMenu } from "../../components/Popover";
import { creatablePrivacies, leaveConfirmText, leaveNeedsConfirmation, unsubscribe } from "./channelInfo";
import { setSubscriptionProperty } from "../../messages";
import { BrowseIcon } from "./icons";
import { openChannels, openChannelSettings, openCreateChannel } from "./overlay";
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
  const [confirming, setConfirming] = useState(false);
  const menu = useMenu(() => setConfirming(false));
  const { busy, error, run } = useAction(() => menu.close(true));
  const id = sub.stream_id;
  return (
    <>
      <MenuButton menu={menu} class="channel-menu-button" label={`Menu of ${sub.name}`}>
        ⋮
      </MenuButton>
      {menu.open && (
        <Popover anchor={menu.button.current!} label={`${sub.name} channel`} onClose={menu.close} error={error} busy={busy} note={confirming ? leaveConfirmText : undefined}>
          <MenuItem
            onSelect={() => {
              menu.close(false);
              openChannelSettings(id);
            }}
          >
            Channel settings
          </MenuItem>
          <MenuSeparator />
          <MenuItem disabled={busy} onSelect={() => void run(() => setSubscriptionProperty(id, "pin_to_top", !sub.pin_to_top))}>
            {sub.pin_to_top ? "Unpin from top" : "Pin to top"}
          </MenuItem>
          <MenuItem disabled={busy} onSelect={() => void run(() => setSubscriptionProperty(id, "is_muted", !sub.is_muted))}>
            {sub.is_muted ? "Unmute channel" : "Mute channel"}
          </MenuItem>
          <MenuSeparator />
          <MenuItem danger disabled={busy} onSelect={() => (leaveNeedsConfirmation(sub) && !confirming ? setConfirming(true) : void run(() => unsubscribe(sub.name)))}>
            {confirming ? "Confirm unsubscribe" : "Unsubscribe"}
          </MenuItem>
        </Popover>
      )}
    </>
  );
}
