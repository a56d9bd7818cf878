/** Pieces the channel list and the settings pane share: the channel's link and its Subscribe button. */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { model, type Stream } from "../../model";
import { go, namer } from "../../navigate";
import { placeToHash } from "../../state/hash";
import { useAction } from "../../components/Popover";
import { privacyOf, subscribe, unsubscribe } from "./channelInfo";
import { closeChannels } from "./overlay";

const narrowOf = (id: number) => [{ operator: "channel", operand: id }];

/** A link to the channel's messages: it closes the overlay and opens the narrow (a new tab on a middle click). */
export function ChannelLink({ stream, class: className, onFocus, children }: { stream: Stream; class?: string; onFocus?: () => void; children: ComponentChildren }) {
  return (
    <a
      class={className}
      href={placeToHash({ view: "narrow", narrow: narrowOf(stream.stream_id) }, namer)}
      onFocus={onFocus}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        closeChannels();
        go(narrowOf(stream.stream_id));
      }}
    >
      {children}
    </a>
  );
}

/**
 * Subscribe or Unsubscribe. Leaving a private channel asks once more: without an invitation
 * there is no way back in.
 */
export function SubscribeButton({ stream }: { stream: Stream }) {
  const subscribed = model.subs.has(stream.stream_id);
  const [confirming, setConfirming] = useState(false);
  const { busy, error, run } = useAction(() => setConfirming(false));
  const isPrivate = privacyOf(stream).startsWith("private");
  const click = () => {
    if (busy) return;
    if (!subscribed) return void run(() => subscribe(stream.name));
    if (isPrivate && !confirming) return setConfirming(true);
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
          Private: you will need an invitation to rejoin.
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
