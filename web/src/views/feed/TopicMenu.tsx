/**
 * A topic's menu in its recipient header, as Zulip's topic actions: mute or unmute, follow or
 * unfollow, mark as read, resolve or unresolve, move. Beside it, the topic's visibility policy
 * when it is not the channel's.
 */
import "./menus.css";
import { useRef, useState } from "preact/hooks";
import { model, type Message } from "../../model";
import { markConversationRead, moveMessages, setTopicPolicy } from "../../messages";
import { keepEnter, MenuItem, MenuSeparator, Popover, useAction } from "../../components/Popover";
import { MoveDialog } from "./MoveDialog";
import { canMoveBetweenChannels, canMoveWithinChannel, canResolve } from "./permissions";

/** Zulip's visibility policies for a topic. */
const INHERIT = 0;
const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;

const POLICY_NAMES: Record<number, string> = { [MUTED]: "muted", [UNMUTED]: "unmuted", [FOLLOWED]: "followed" };

/** Zulip marks a resolved topic by this prefix on its name. */
const RESOLVED = "✔ ";

const unresolved = (topic: string) => topic.replace(/^(✔ )+/, "");

export function TopicMenu({ m }: { m: Message }) {
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [moving, setMoving] = useState(false);
  const policy = model.topicPolicy.get(`${m.stream_id}:${m.subject}`) ?? INHERIT;
  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  return (
    <>
      {policy !== INHERIT && <span class="topic-policy">{POLICY_NAMES[policy]}</span>}
      <button
        ref={button}
        type="button"
        class="menu-button topic-menu-button"
        aria-label="Topic actions"
        title="Topic actions"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onKeyDown={keepEnter}
      >
        ⋮
      </button>
      {open && (
        <TopicActions
          m={m}
          policy={policy}
          anchor={button.current!}
          close={close}
          move={() => {
            close(true);
            setMoving(true);
          }}
        />
      )}
      {moving && <MoveDialog m={m} whole onClose={() => setMoving(false)} />}
    </>
  );
}

interface ActionsProps {
  m: Message;
  policy: number;
  anchor: HTMLElement;
  close: (refocus: boolean) => void;
  move: () => void;
}

function TopicActions({ m, policy, anchor, close, move }: ActionsProps) {
  const { busy, error, run } = useAction(() => close(true));
  const streamId = m.stream_id!;
  const topic = m.subject;
  // In a muted channel a topic without a policy of its own is muted; unmuting it needs "unmuted".
  const channelMuted = !!model.subs.get(streamId)?.is_muted;
  const muted = policy === MUTED || (channelMuted && policy === INHERIT);
  const unread = [...model.unread.values()].some((u) => u.streamId === streamId && u.topic === topic);
  const resolved = topic.startsWith(RESOLVED);
  const mayResolve = canResolve(streamId);
  const mayMove = canMoveWithinChannel(streamId) || canMoveBetweenChannels(streamId);
  const setPolicy = (p: number) => void run(() => setTopicPolicy(streamId, topic, p));
  const rename = (to: string) =>
    void run(() => moveMessages(m.id, { topic: to, propagateMode: "change_all", notifyOld: false, notifyNew: true }));

  return (
    <Popover anchor={anchor} label="Topic actions" onClose={close} error={error} busy={busy}>
      <MenuItem disabled={busy} onSelect={() => setPolicy(muted ? (channelMuted ? UNMUTED : INHERIT) : MUTED)}>
        {muted ? "Unmute topic" : "Mute topic"}
      </MenuItem>
      <MenuItem disabled={busy} onSelect={() => setPolicy(policy === FOLLOWED ? INHERIT : FOLLOWED)}>
        {policy === FOLLOWED ? "Unfollow topic" : "Follow topic"}
      </MenuItem>
      {unread && (
        <MenuItem disabled={busy} onSelect={() => void run(() => markConversationRead(streamId, topic))}>
          Mark topic as read
        </MenuItem>
      )}
      {(mayResolve || mayMove) && <MenuSeparator />}
      {mayResolve && (
        <MenuItem disabled={busy} onSelect={() => rename(resolved ? unresolved(topic) : RESOLVED + topic)}>
          {resolved ? "Mark as unresolved" : "Mark as resolved"}
        </MenuItem>
      )}
      {mayMove && <MenuItem onSelect={move}>Move topic</MenuItem>}
    </Popover>
  );
}
