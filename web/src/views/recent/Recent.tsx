/**
 * Recent conversations: topics and direct-message conversations by latest activity, with their
 * unread counts and who took part, filtered to unread, to those the reader took part in, with or
 * without muted ones, or by a text; it updates as messages arrive, move or go.
 */
import { useEffect, useState } from "preact/hooks";
import { dmNames, messageDmKey, model, streamName, topicMuted, topicDisplay, unreadCounts, userName } from "../../model";
import { loadRecentHistory } from "../../messages";
import { conversationHash } from "../../navigate";
import { dateOnly } from "../../time";
import { filterRecent, recentConversations, timeAgo, type RecentConversation, type RecentFilter } from "../../state/recent";
import { moveFocusInList } from "../../components/listKeys";
import { AvatarImage } from "../../components/Avatar";
import "../inbox/inbox.css";
import "./recent.css";

function Participants({ ids }: { ids: number[] }) {
  const shown = ids.slice(0, 4);
  return (
    <span class="participants" aria-label={`Participants: ${ids.map(userName).join(", ")}`}>
      {shown.map((id) => (
        <span key={id} class="participant" title={userName(id)} aria-hidden="true">
          <AvatarImage userId={id} name={userName(id)} />
        </span>
      ))}
      {ids.length > shown.length && <span class="participant more">+{ids.length - shown.length}</span>}
    </span>
  );
}

export function Recent() {
  const [filter, setFilter] = useState<RecentFilter>({ unreadOnly: false, participatedOnly: false, includeMuted: false });
  const [text, setText] = useState("");
  const [error, setError] = useState("");
  useEffect(() => {
    loadRecentHistory().catch((err: Error) => setError(err.message));
  }, []);

  const counts = unreadCounts();
  const unread = (c: RecentConversation) => (c.dm !== undefined ? counts.byDm.get(c.dm) : counts.byTopic.get(c.key)) ?? 0;
  const muted = (c: RecentConversation) => c.streamId !== undefined && topicMuted(c.streamId, c.topic!);
  const want = text.trim().toLowerCase();
  const label = (c: RecentConversation) => (c.dm !== undefined ? dmNames(c.dm) : `${streamName(c.streamId)} ${c.topic}`);
  const rows = filterRecent(recentConversations(model.messages.values(), model.me.user_id, messageDmKey), filter, unread, muted).filter(
    (c) => !want || label(c).toLowerCase().includes(want),
  );
  const now = Date.now() / 1000;
  const toggle = (key: "unreadOnly" | "participatedOnly" | "includeMuted", name: string) => (
    <button type="button" class="secondary" aria-pressed={filter[key]} onClick={() => setFilter({ ...filter, [key]: !filter[key] })}>
      {name}
    </button>
  );

  return (
    <div class="recent" role="region" aria-label="Recent conversations" onKeyDown={(e) => moveFocusInList(e, ".recent-link")}>
      <div class="recent-toolbar">
        <label for="recent-filter" class="sr-only">
          Filter conversations
        </label>
        <input id="recent-filter" type="search" placeholder="Filter conversations" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        {toggle("unreadOnly", "Unread")}
        {toggle("participatedOnly", "Participated")}
        {toggle("includeMuted", "Include muted")}
      </div>
      {error && (
        <p class="error" role="alert">
          Cannot load recent conversations: {error}
        </p>
      )}
      <table class="recent-table">
        <thead>
          <tr>
            <th scope="col">Conversation</th>
            <th scope="col">Unread</th>
            <th scope="col" class="wide-only">
              Participants
            </th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => {
            const n = unread(c);
            return (
              <tr key={c.key} class={n ? "has-unread" : ""}>
                <td class="recent-conversation">
                  <div>
                  {c.dm !== undefined ? (
                    <a class="recent-link" href={conversationHash(c)}>
                      {dmNames(c.dm)}
                    </a>
                  ) : (
                    <>
                      <span class="recent-channel" style={{ borderLeftColor: model.subs.get(c.streamId!)?.color ?? "var(--border)" }}>
                        #{streamName(c.streamId)}
                      </span>
                      <a class="recent-link" href={conversationHash(c)}>
                        {topicDisplay(c.topic!)}
                      </a>
                    </>
                  )}
                  </div>
                </td>
                <td>{n > 0 && <span class="count">{n}</span>}</td>
                <td class="wide-only">
                  <Participants ids={c.senders} />
                </td>
                <td class="recent-time">
                  <time dateTime={new Date(c.timestamp * 1000).toISOString()}>{timeAgo(c.timestamp, now, (ms) => dateOnly(ms))}</time>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {!rows.length && !error && <p class="inbox-empty">No conversations match your filters.</p>}
    </div>
  );
}
