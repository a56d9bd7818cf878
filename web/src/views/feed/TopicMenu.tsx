/**
 * A topic's menu in its recipient header, as Zulip's topic actions: mute or unmute, follow or
 * unfollow, mark as read, resolve or unresolve, move. Beside it, the topic's visibility policy
 * when it is not the channel's.
 */
import "./menus.css";
import { model, RESOLVED_PREFIX, topicMuted, unresolvedTopic, type Message } from "../../model";
import { markConversationRead, moveMessages, setTopicPolicy, toggleTopicMute, TopicPolicy } from "../../messages";
import { MenuButton, MenuItem, MenuSeparator, Popover, useAction, useMenu } from "../../components/Popover";
import { MoveDialog } from "./MoveDialog";
import { canMove, canResolve } from "../../permissions";

const POLICY_NAMES: Record<number, string> = { [TopicPolicy.MUTED]: "muted", [TopicPolicy.UNMUTED]: "unmuted", [TopicPolicy.FOLLOWED]: "followed" };

export function TopicMenu({ m }: { m: Message }) {
  const menu = useMenu<"move">();
  const policy = model.topicPolicy.get(`${m.stream_id}:${m.subject}`) ?? TopicPolicy.INHERIT;
  return (
    <>
      {policy !== TopicPolicy.INHERIT && <span class="topic-policy">{POLICY_NAMES[policy]}</span>}
      <MenuButton menu={menu} class="menu-button topic-menu-button" label="Topic actions" title="Topic actions">
        ⋮
      </MenuButton>
      {menu.open && <TopicActions m={m} policy={policy} anchor={menu.button.current!} close={menu.close} move={() => menu.show("move")} />}
      {menu.dialog === "move" && <MoveDialog m={m} whole onClose={menu.hide} />}
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
  const muted = topicMuted(streamId, topic);
  const followed = policy === TopicPolicy.FOLLOWED;
  const unread = [...model.unread.values()].some((u) => u.streamId === streamId && u.topic === topic);
  const resolved = topic.startsWith(RESOLVED_PREFIX);
  const mayResolve = canResolve(streamId);
  const mayMove = canMove(streamId);
  const rename = (to: string) =>
    void run(() => moveMessages(m.id, { topic: to, propagateMode: "change_all", notifyOld: false, notifyNew: true }));

  return (
    <Popover anchor={anchor} label="Topic actions" onClose={close} error={error} busy={busy}>
      <MenuItem disabled={busy} onSelect={() => void run(() => toggleTopicMute(streamId, topic))}>
        {muted ? "Unmute topic" : "Mute topic"}
      </MenuItem>
      <MenuItem disabled={busy} onSelect={() => void run(() => setTopicPolicy(streamId, topic, followed ? TopicPolicy.INHERIT : TopicPolicy.FOLLOWED))}>
        {followed ? "Unfollow topic" : "Follow topic"}
      </MenuItem>
      {unread && (
        <MenuItem disabled={busy} onSelect={() => void run(() => markConversationRead(streamId, topic))}>
          Mark topic as read
        </MenuItem>
      )}
      {(mayResolve || mayMove) && <MenuSeparator />}
      {mayResolve && (
        <MenuItem disabled={busy} onSelect={() => rename(resolved ? unresolvedTopic(topic) : RESOLVED_PREFIX + topic)}>
          {resolved ? "Mark as unresolved" : "Mark as resolved"}
        </MenuItem>
      )}
      {mayMove && <MenuItem onSelect={move}>Move topic</MenuItem>}
    </Popover>
  );
}
