/** Pieces the channel list and the settings pane share: the channel's link and its Subscribe button. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { model, type Stream } from "../../model";
import { namer } from "../../navigate";
import { placeToHash } from "../../state/hash";
import { useAction } from "../../components/Popover";
import { leaveConfirmText, leaveNeedsConfirmation, subscribe, unsubscribe } from "./channelInfo";
import { hideChannels } from "./overlay";

/**
 * A link to the channel's messages. Following it closes the overlay, and the page opens the narrow
 * when the address changes, as for any link in it; opened in a new tab or window, it leaves the overlay open.
 */
export function ChannelLink({ stream, class: className, onFocus, children }: { stream: Stream; class?: string; onFocus?: () => void; children: ComponentChildren }) {
  return (
    <a class={className} href={placeToHash({ view: "narrow", narrow: [{ operator: "channel", operand: stream.stream_id }] }, namer)} onFocus={onFocus} onClick={(e) => !(e.ctrlKey || e.metaKey || e.shiftKey) && hideChannels()}>
      {children}
    </a>
  );
}

/** Subscribe or Unsubscribe; leaving a private channel asks once more. */
export function SubscribeButton({ stream }: { stream: Stream }) {
  const subscribed = model.subs.has(stream.stream_id);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction(() => setConfirming(false));
  const click = () => {
    if (busy) return;
    if (!subscribed) return void run(() => subscribe(stream.name));
    if (leaveNeedsConfirmation(stream) && !confirming) return setConfirming(true);
    void run(() => unsubscribe(stream.name));
  };
  const label = subscribed ? (confirming ? "Confirm" : "Unsubscribe") : "Subscribe";
  return (
    <span class="subscribe-control">
      <button
        type="button"
        class={`subscribe-button${subscribed ? " secondary" : ""}${confirming ? " confirming" : ""}`}
        aria-label={confirming ? `Confirm leaving ${stream.name}` : `${label} ${subscribed ? "from" : "to"} ${stream.name}`}
        aria-busy={busy}
        onClick={click}
        onBlur={() => setConfirming(false)}
      >
        {label}
      </button>
      {confirming && (
        <span class="subscribe-note" role="status">
          {leaveConfirmText}
        </span>
      )}
      {error && (
        <span class="subscribe-note error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
