/** Moving a message, the rest of its topic, or the whole topic to another topic or channel (Zulip's move dialog). */
import { useState } from "preact/hooks";
import { model, streamName, type Message } from "../../model";
import { moveMessages, type Move } from "../../messages";
import { DialogActions } from "../../components/DialogActions";
import { Modal } from "../../components/Modal";
import { useAction } from "../../components/Popover";
import { canMoveBetweenChannels, canMoveWithinChannel } from "../../permissions";
import { fullTime } from "../../time";

const MODES: [Move["propagateMode"], string][] = [
  ["change_all", "Move all messages in this topic"],
  ["change_later", "Move this and all following messages in this topic"],
  ["change_one", "Move only this message"],
];

/** `whole`: opened from the topic's menu, where "this message" is the first one shown of the topic. */
export function MoveDialog({ m, whole, onClose }: { m: Message; whole: boolean; onClose: () => void }) {
  const origin = m.stream_id!;
  const [streamId, setStreamId] = useState(origin);
  const [topic, setTopic] = useState(m.subject);
  const [mode, setMode] = useState<Move["propagateMode"]>(whole ? "change_all" : "change_one");
  const [notifyOld, setNotifyOld] = useState(false);
  const [notifyNew, setNotifyNew] = useState(true);
  const { busy, error, run } = useAction(onClose);

  // The messages' own channel is always a choice, subscribed or not, so that it is the one selected.
  const here = { stream_id: origin, name: streamName(origin) };
  const channels = canMoveBetweenChannels(origin)
    ? [here, ...[...model.subs.values()].filter((s) => !s.is_archived && s.stream_id !== origin)].sort((a, b) => a.name.localeCompare(b.name))
    : [here];
  // Renaming needs the permission in the channel the messages leave or the one they go to.
  const renaming = canMoveWithinChannel(origin) || canMoveWithinChannel(streamId);
  const newTopic = topic.trim();
  const move: Move = {
    streamId: streamId !== origin ? streamId : undefined,
    topic: renaming && newTopic !== m.subject ? newTopic : undefined,
    propagateMode: mode,
    notifyOld,
    notifyNew,
  };
  const nothingToDo = move.streamId === undefined && move.topic === undefined;

  return (
    <Modal title={whole ? `Move topic “${m.subject}”` : "Move messages"} onClose={onClose}>
      <form
        class="move-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => moveMessages(m.id, move));
        }}
      >
        <div class="field">
          <label for="move-channel">Channel</label>
          <select id="move-channel" value={String(streamId)} onChange={(e) => setStreamId(Number(e.currentTarget.value))}>
            {channels.map((s) => (
              <option key={s.stream_id} value={String(s.stream_id)}>
                #{s.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="move-topic">Topic</label>
          <input id="move-topic" value={topic} disabled={!renaming} autoFocus onInput={(e) => setTopic(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="move-mode">Which messages</label>
          <select id="move-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as Move["propagateMode"])}>
            {MODES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          {whole && mode !== "change_all" && (
            <p class="hint">
              “This message” is the first one shown of the topic: {m.sender_full_name}, {fullTime(m.timestamp * 1000, model.settings.twenty_four_hour_time)}.
            </p>
          )}
        </div>
        <label class="check">
          <input type="checkbox" checked={notifyOld} onChange={(e) => setNotifyOld(e.currentTarget.checked)} /> Send automated notice to old topic
        </label>
        <label class="check">
          <input type="checkbox" checked={notifyNew} onChange={(e) => setNotifyNew(e.currentTarget.checked)} /> Send automated notice to new topic
        </label>
        <DialogActions error={error} busy={busy} onCancel={onClose} confirm="Confirm" busyLabel="Moving…" disabled={nothingToDo} />
      </form>
    </Modal>
  );
}
