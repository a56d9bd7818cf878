/** One message: sender, time, rendered HTML, reactions, and its actions (react, star, edit, and the rest in its menu). */
import { memo } from "preact/compat";
import { useState } from "preact/hooks";
import { model, changed, userName, type Message, type Reaction } from "../../model";
import { codeToChar } from "../../emoji";
import { Rendered } from "../../components/Rendered";
import { editMessage, keepsUnread, rawContent, setStarred, toggleReaction } from "../../messages";
import { EmojiPicker } from "../../components/EmojiPicker";
import { MessageMenu } from "./MessageMenu";
import { canEditContent } from "../../permissions";
import { useFetched } from "../../components/useFetched";
import { fullTime, timeOfDay } from "../../time";
import { AvatarImage } from "../../components/Avatar";
import { UserCard, useUserCard } from "../people/UserCard";
import { meMessageHtml } from "../../state/feed";
import { WidgetOr } from "../widgets/Widget";
import { lightboxClick } from "../lightbox/Lightbox";

function ReactionButton({ m, group }: { m: Message; group: Reaction[] }) {
  const r = group[0];
  const mine = group.some((x) => x.user_id === model.me.user_id);
  const custom = r.reaction_type === "realm_emoji" ? model.realm.realm_emoji[r.emoji_code] : undefined;
  const who = group.map((x) => userName(x.user_id)).join(", ");
  return (
    <button
      type="button"
      class={`reaction${mine ? " mine" : ""}`}
      aria-pressed={mine}
      aria-label={`${r.emoji_name}: ${group.length}, by ${who}`}
      title={`${who} reacted with :${r.emoji_name}:`}
      onClick={() => void toggleReaction(m, { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type })}
    >
      {custom ? <img src={custom.source_url} alt="" class="emoji" /> : r.reaction_type === "unicode_emoji" ? codeToChar(r.emoji_code) : `:${r.emoji_name}:`}
      <span class="n">{group.length}</span>
    </button>
  );
}

function Editor({ m, done }: { m: Message; done: () => void }) {
  const raw = useFetched(() => rawContent(m.id), [m.id]);
  // null until the reader changes the text fetched.
  const [edited, setText] = useState<string | null>(null);
  const [error, setError] = useState("");
  const text = edited ?? raw.value;
  if (text === null) {
    if (!raw.error) return <p>Loading…</p>;
    // The text to edit could not be fetched: say why, and let the reader give up.
    return (
      <div class="edit">
        <p class="error" role="alert">
          {raw.error}
        </p>
        <button type="button" class="secondary" onClick={done}>
          Cancel
        </button>
      </div>
    );
  }
  const save = async () => {
    try {
      await editMessage(m.id, text);
      done();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <form
      class="edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label class="sr-only" for={`edit-${m.id}`}>
        Edit message
      </label>
      <textarea
        id={`edit-${m.id}`}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") done();
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void save();
        }}
        ref={(el) => el?.focus()}
      />
      {error && <p class="error" role="alert">{error}</p>}
      <button type="submit">Save</button>
      <button type="button" class="secondary" onClick={done}>
        Cancel
      </button>
    </form>
  );
}

interface RowProps {
  m: Message;
  showSender: boolean;
  selected: boolean;
  unread: boolean;
}

/**
 * `reading`: whether the feed may mark the message read when it is seen (it looks for
 * `data-unread`); not after "Mark as unread from here" until the reader leaves the narrow.
 * Worked out here, outside the memo, so that leaving the narrow reaches every row.
 */
export function MessageRow(props: RowProps) {
  return (
    <Row
      {...props}
      reading={!keepsUnread(model.narrow)}
      twentyFour={model.settings.twenty_four_hour_time}
      avatar={model.users.get(props.m.sender_id)?.avatar_url}
    />
  );
}

/** `twentyFour`, the setting, and `avatar`, the sender's, are props so that changing them reaches rows the memo would keep. */
const Row = memo(function Row({ m, showSender, selected, unread, reading, twentyFour }: RowProps & { reading: boolean; twentyFour: unknown; avatar: unknown }) {
  const [editing, setEditing] = useState(false);
  const [picking, setPicking] = useState(false);
  const cards = useUserCard();
  const starred = m.flags.includes("starred");
  const meHtml = meMessageHtml(m, m.sender_full_name);
  const mentioned = m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned");
  const groups = new Map<string, Reaction[]>();
  for (const r of m.reactions) {
    const k = `${r.reaction_type}:${r.emoji_code}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return (
    <article
      class={`message${selected ? " selected" : ""}${unread ? " unread" : ""}${mentioned ? " mentioned" : ""}`}
      data-id={m.id}
      data-unread={unread && reading ? "1" : undefined}
      aria-label={`Message from ${m.sender_full_name}`}
      onClick={() => {
        if (model.selectedId !== m.id) {
          model.selectedId = m.id;
          changed();
        }
      }}
    >
      {showSender ? (
        // The name beside it is the same card's button for the keyboard.
        <button type="button" class="avatar" tabIndex={-1} aria-label={`User card: ${m.sender_full_name}`} onClick={(e) => cards.toggle(m.sender_id, e.currentTarget)}>
          <AvatarImage userId={m.sender_id} name={m.sender_full_name} />
        </button>
      ) : (
        <div class="avatar-space" />
      )}
      <div class="body" onClick={lightboxClick}>
        {showSender && (
          <button type="button" class="sender" aria-haspopup="menu" aria-expanded={!!cards.card} onClick={(e) => cards.toggle(m.sender_id, e.currentTarget)}>
            {m.sender_full_name}
          </button>
        )}
        {cards.card && <UserCard userId={m.sender_id} anchor={cards.card.anchor} fallbackName={m.sender_full_name} align="start" onClose={cards.close} />}
        <time dateTime={new Date(m.timestamp * 1000).toISOString()} title={fullTime(m.timestamp * 1000, twentyFour)}>
          {timeOfDay(m.timestamp * 1000, twentyFour)}
        </time>
        {m.last_edit_timestamp ? <span class="edited">(edited)</span> : m.last_moved_timestamp ? <span class="edited">(moved)</span> : null}
        {editing ? (
          <Editor m={m} done={() => setEditing(false)} />
        ) : (
          <WidgetOr m={m}>
            <Rendered html={meHtml ?? m.content} class={`content${mentioned ? " mentioned" : ""}${meHtml ? " me-message" : ""}`} />
          </WidgetOr>
        )}
        {groups.size > 0 && (
          <div class="reactions">
            {[...groups.values()].map((g) => (
              <ReactionButton key={`${g[0].reaction_type}:${g[0].emoji_code}`} m={m} group={g} />
            ))}
          </div>
        )}
        {picking && (
          <EmojiPicker
            onPick={(e) => {
              setPicking(false);
              void toggleReaction(m, e);
            }}
            onClose={() => setPicking(false)}
          />
        )}
      </div>
      <div class="actions">
        <button type="button" aria-label="Add emoji reaction" title="Add emoji reaction" onClick={() => setPicking(!picking)}>
          ☺
        </button>
        <button type="button" aria-label={starred ? "Unstar this message" : "Star this message"} aria-pressed={starred} class={starred ? "starred" : ""} onClick={() => void setStarred(m, !starred)}>
          {starred ? "★" : "☆"}
        </button>
        {canEditContent(m) && (
          <button type="button" aria-label="Edit message" onClick={() => setEditing(true)}>
            ✎
          </button>
        )}
        <MessageMenu m={m} selected={selected} onEdit={() => setEditing(true)} />
      </div>
    </article>
  );
});
