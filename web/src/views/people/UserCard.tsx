/**
 * A person's card, as Zulip's user card: their name, presence, role (or a bot's owner), status,
 * email, local time and when they were last active, then what one can do with them — write to
 * them, read one's direct messages with them or everything they sent, copy their email. It
 * opens from a message's sender and from the people list, takes the focus and gives it back,
 * and follows the model while open (a new name, status or role shows at once).
 */
import "./people.css";
import { useRef, useState } from "preact/hooks";
import { model, useModel, userName, type User } from "../../model";
import { codeToChar } from "../../emoji";
import { go } from "../../navigate";
import { openCompose } from "../compose/Compose";
import { MenuItem, MenuSeparator, Popover } from "../../components/Popover";
import { AvatarImage } from "../../components/Avatar";
import { lastActive, localTime, presenceState, roleLine, visibleEmail, type CardUser } from "./card";

interface Status {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

function StatusEmoji({ s }: { s: Status }) {
  if (!s.emoji_name) return null;
  const custom = s.reaction_type === "realm_emoji" && s.emoji_code ? model.realm.realm_emoji[s.emoji_code] : undefined;
  if (custom) return <img class="emoji" src={custom.source_url} alt={`:${s.emoji_name}:`} />;
  if (s.reaction_type === "unicode_emoji" && s.emoji_code) {
    return (
      <span class="status-emoji" role="img" aria-label={`:${s.emoji_name}:`}>
        {codeToChar(s.emoji_code)}
      </span>
    );
  }
  return <span class="status-emoji">:{s.emoji_name}:</span>;
}

/** Which card is open and on what: one per place that opens cards (a message, the people list). */
export function useUserCard() {
  const [card, setCard] = useState<{ userId: number; anchor: HTMLElement } | null>(null);
  return {
    card,
    toggle: (userId: number, anchor: HTMLElement) => setCard(card?.anchor === anchor ? null : { userId, anchor }),
    close: () => setCard(null),
  };
}

export function UserCard({ userId, anchor, fallbackName, align, onClose }: { userId: number; anchor: HTMLElement; fallbackName?: string; align?: "start" | "end"; onClose: () => void }) {
  useModel();
  const [note, setNote] = useState("");
  const emailRef = useRef<HTMLParagraphElement>(null);
  const user = model.users.get(userId) as (User & CardUser) | undefined;
  const name = user?.full_name ?? fallbackName ?? userName(userId);
  const me = userId === model.me.user_id;
  const now = Date.now();
  const presence = model.presence.get(userId);
  const status = (model.userStatus.get(userId) ?? {}) as Status;
  const email = user ? visibleEmail(user) : "";
  const time = user?.is_active ? localTime(user.timezone, now, model.settings.twenty_four_hour_time) : "";
  const seen = user?.is_active && !user.is_bot ? lastActive(presence, now / 1000) : "";
  const dot = user?.is_active && !user.is_bot ? presenceState(presence, now / 1000) : null;

  const close = (refocus: boolean) => {
    onClose();
    if (refocus) anchor.focus();
  };
  const act = (action: () => void) => () => {
    close(false);
    action();
  };
  const copyEmail = async () => {
    try {
      await navigator.clipboard.writeText(email);
      setNote("Email copied to the clipboard");
    } catch {
      // No clipboard for this page (plain HTTP on a LAN): the address is selected to copy by hand.
      const range = document.createRange();
      range.selectNodeContents(emailRef.current!);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      setNote("Selected: copy it with Ctrl+C (⌘C on a Mac)");
    }
  };

  return (
    <Popover anchor={anchor} label={`User card: ${name}`} onClose={close} note={note} align={align}>
      <div class="user-card-head">
        <div class="avatar user-card-avatar" aria-hidden="true">
          <AvatarImage userId={userId} name={name} />
        </div>
        <div class="user-card-who">
          <p class="user-card-name">
            <strong>{name}</strong>
            {me && <span class="user-card-you"> (you)</span>}
            {dot && <span class={`presence ${dot}`} role="img" aria-label={dot} />}
          </p>
          {user && <p class="user-card-role">{roleLine(user, (id) => model.users.get(id)?.full_name)}</p>}
        </div>
      </div>
      <div class="user-card-facts">
        {user && !user.is_active && <p class="user-card-deactivated">{user.is_bot ? "This bot has been deactivated." : "This user has been deactivated."}</p>}
        {(status.status_text || status.emoji_name) && (
          <p class="user-card-status">
            <StatusEmoji s={status} /> {status.status_text}
          </p>
        )}
        {email && (
          <p class="user-card-email" ref={emailRef}>
            {email}
          </p>
        )}
        {time && <p class="user-card-time">{time}</p>}
        {seen && <p class="user-card-seen">{seen}</p>}
      </div>
      <MenuSeparator />
      {user?.is_active && <MenuItem onSelect={act(() => openCompose({ kind: "dm", to: [userId] }))}>Send direct message</MenuItem>}
      <MenuItem onSelect={act(() => go([{ operator: "dm", operand: [userId] }]))}>{me ? "View messages with yourself" : "View direct messages"}</MenuItem>
      <MenuItem onSelect={act(() => go([{ operator: "sender", operand: userId }]))}>View messages sent</MenuItem>
      {email && <MenuItem onSelect={() => void copyEmail()}>Copy email</MenuItem>}
    </Popover>
  );
}
