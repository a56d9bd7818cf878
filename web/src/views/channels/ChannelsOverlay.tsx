/**
 * Browsing channels, as Zulip's channel settings overlay: the channels one is subscribed to or
 * all one can see, filtered by name or description, each with its privacy, description,
 * subscriber count and a Subscribe/Unsubscribe button; beside the list, the chosen channel's
 * settings or the form that creates one. Arrow keys move through the list. On a narrow screen
 * the list and the pane take turns.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { model, useModel, type Stream } from "../../model";
import { Modal } from "../../components/Modal";
import { Rendered } from "../../components/Rendered";
import { moveFocusInList } from "../../components/listKeys";
import { channelMatches, creatablePrivacies, privacyOf, subscriberCount } from "./channelInfo";
import { ChannelSettings } from "./ChannelSettings";
import { CreateChannel } from "./CreateChannel";
import { PeopleIcon, PrivacyIcon } from "./icons";
import { closeChannels, followPane, overlay, showPane, showTab } from "./overlay";
import { ChannelLink, SubscribeButton } from "./parts";
import "../../components/dialog.css";
import "./channels.css";

const wide = () => window.matchMedia("(min-width: 801px)").matches;

function ChannelRow({ stream, selected }: { stream: Stream; selected: boolean }) {
  const sub = model.subs.get(stream.stream_id);
  const count = subscriberCount(stream.stream_id);
  const people = `${count} subscriber${count === 1 ? "" : "s"}`;
  const pane = { kind: "channel", id: stream.stream_id, section: "general" } as const;
  const select = () => showPane(pane);
  return (
    <li
      class={`channel-row${selected ? " selected" : ""}${sub ? " subscribed" : ""}`}
      data-stream-id={stream.stream_id}
      // A click beside the links and buttons shows the channel's settings.
      onClick={(e) => !(e.target as HTMLElement).closest("a, button") && select()}
    >
      <span class={`channel-badge${sub ? " colored" : ""}`} style={sub ? { background: sub.color } : undefined}>
        <PrivacyIcon privacy={privacyOf(stream)} />
      </span>
      <div class="channel-row-main">
        <ChannelLink
          stream={stream}
          class="channel-row-name"
          // On a wide screen the pane follows the keyboard through the list, unless a new channel is being written.
          onFocus={() => wide() && overlay.pane.kind !== "create" && !selected && followPane(pane)}
        >
          {stream.name}
        </ChannelLink>
        {stream.rendered_description && <Rendered class="channel-row-description" html={stream.rendered_description} />}
      </div>
      {count !== undefined && (
        <span class="channel-row-count" title={people} aria-label={people}>
          <PeopleIcon />
          {count}
        </span>
      )}
      <button type="button" class="channel-row-settings" aria-label={`Settings of ${stream.name}`} title="Channel settings" aria-pressed={selected} onClick={select}>
        ⚙
      </button>
      <SubscribeButton stream={stream} />
    </li>
  );
}

function Browser() {
  const [filter, setFilter] = useState("");
  const filterRef = useRef<HTMLInputElement>(null);
  const { tab, pane } = overlay;
  // The dialog opens on its first button; the filter is where browsing starts.
  useEffect(() => {
    const t = setTimeout(() => pane.kind !== "create" && filterRef.current?.focus());
    return () => clearTimeout(t);
  }, []);
  const shown = (s: Stream) => (tab === "all" || model.subs.has(s.stream_id)) && !s.is_archived && channelMatches(s, filter);
  const streams = [...model.streams.values()].filter(shown).sort((a, b) => a.name.localeCompare(b.name));
  const canCreate = creatablePrivacies().length > 0;
  const selectedId = pane.kind === "channel" ? pane.id : undefined;
  const firstRow = () => document.querySelector<HTMLElement>(".channels-list .channel-row-name");
  return (
    <div class={`channels-overlay${pane.kind !== "none" ? " has-pane" : ""}`}>
      <section class="channels-side" aria-label="Channel list">
        <div class="channels-toolbar">
          <div class="channels-tabs" role="group" aria-label="Which channels">
            <button type="button" aria-pressed={tab === "subscribed"} onClick={() => showTab("subscribed")}>
              Subscribed
            </button>
            <button type="button" aria-pressed={tab === "all"} onClick={() => showTab("all")}>
              All channels
            </button>
          </div>
          {canCreate && (
            <button type="button" class="channels-new" onClick={() => showPane({ kind: "create" })} aria-pressed={pane.kind === "create"}>
              + New channel
            </button>
          )}
        </div>
        <input
          ref={filterRef}
          class="channels-filter"
          type="search"
          placeholder="Filter channels"
          aria-label="Filter channels"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key !== "ArrowDown") return;
            e.preventDefault();
            firstRow()?.focus();
          }}
        />
        {streams.length ? (
          <ul class="channels-list" aria-label={tab === "subscribed" ? "Subscribed channels" : "All channels"} onKeyDown={(e) => moveFocusInList(e, ".channel-row-name")}>
            {streams.map((s) => (
              <ChannelRow key={s.stream_id} stream={s} selected={s.stream_id === selectedId} />
            ))}
          </ul>
        ) : (
          <p class="channels-hint channels-empty">
            {filter.trim() ? "No channel matches." : tab === "subscribed" ? "You are not subscribed to any channel yet." : "There are no channels you can see."}
          </p>
        )}
      </section>
      <section class="channels-pane" aria-label={pane.kind === "create" ? "New channel" : "Channel settings"}>
        {pane.kind !== "none" && (
          <button type="button" class="channels-back" onClick={() => showPane({ kind: "none" })}>
            ← Back to the list
          </button>
        )}
        {pane.kind === "channel" ? (
          <ChannelSettings id={pane.id} section={pane.section} onSection={(section) => showPane({ ...pane, section })} />
        ) : pane.kind === "create" ? (
          <CreateChannel onCancel={() => showPane({ kind: "none" })} />
        ) : (
          <p class="channels-hint channels-placeholder">Choose a channel to see its settings{canCreate ? ", or create a new one" : ""}.</p>
        )}
      </section>
    </div>
  );
}

/** Mounted once in the page; shows itself when `openChannels` is called. */
export function ChannelsOverlay() {
  useModel();
  if (!overlay.open) return null;
  return (
    <Modal title="Channels" onClose={closeChannels}>
      <Browser />
    </Modal>
  );
}
