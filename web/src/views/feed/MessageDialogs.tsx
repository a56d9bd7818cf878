/** The dialogs a message's menu opens: its source, its edit history, who read it, a report, deleting it, its link. */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { model, streamName, userName, type Message } from "../../model";
import { deleteMessage, messageHistory, rawContent, reportMessage, type EditHistoryEntry } from "../../messages";
import { DialogActions } from "../../components/DialogActions";
import { Modal } from "../../components/Modal";
import { useAction } from "../../components/Popover";
import { Rendered } from "../../components/Rendered";
import { useFetched } from "../../components/useFetched";
import { fullTime } from "../../time";
import { AvatarImage } from "../../components/Avatar";
import { byName } from "../people/card";

function Loading({ error }: { error: string }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : (
    <p class="hint">Loading…</p>
  );
}

export function SourceDialog({ m, onClose }: { m: Message; onClose: () => void }) {
  const source = useFetched(() => rawContent(m.id));
  return (
    <Modal title="Message source" onClose={onClose}>
      {source.value === null ? <Loading error={source.error} /> : <pre class="source">{source.value}</pre>}
    </Modal>
  );
}

/** One version: who made it and when, where it moved, and its text when the text changed. */
function Version({ v, first, m }: { v: EditHistoryEntry; first: boolean; m: Message }) {
  const who = v.user_id === null ? "an unknown person" : userName(v.user_id);
  const showText = first || v.prev_content !== undefined;
  return (
    <li>
      <p class="version-head">
        <strong>{first ? `Posted by ${userName(m.sender_id)}` : `${v.prev_content !== undefined ? "Edited" : "Moved"} by ${who}`}</strong> <time dateTime={new Date(v.timestamp * 1000).toISOString()}>{fullTime(v.timestamp * 1000, model.settings.twenty_four_hour_time)}</time>
      </p>
      {v.prev_topic !== undefined && (
        <p class="version-move">
          Topic: <del>{v.prev_topic}</del> → <ins>{v.topic}</ins>
        </p>
      )}
      {v.prev_stream !== undefined && (
        <p class="version-move">
          Channel: <del>#{streamName(v.prev_stream)}</del> → <ins>#{streamName(v.stream)}</ins>
        </p>
      )}
      {showText && <Rendered class="version-content" html={v.rendered_content} />}
    </li>
  );
}

export function HistoryDialog({ m, onClose }: { m: Message; onClose: () => void }) {
  const history = useFetched(() => messageHistory(m.id));
  return (
    <Modal title="Message edit history" onClose={onClose}>
      {history.value === null ? (
        <Loading error={history.error} />
      ) : (
        <ol class="history">
          {history.value.map((v, i) => (
            <Version key={v.timestamp + ":" + i} v={v} first={i === 0} m={m} />
          ))}
        </ol>
      )}
    </Modal>
  );
}

/**
 * Who has read the message, by name. The server leaves out its sender, people who keep their
 * reading to themselves, and people muted either way.
 */
export function ReadReceiptsDialog({ m, onClose }: { m: Message; onClose: () => void }) {
  const receipts = useFetched(() => api<{ user_ids: number[] }>("GET", `/messages/${m.id}/read_receipts`).then((r) => byName(r.user_ids, userName)), [m.id]);
  const ids = receipts.value;
  return (
    <Modal title="Read receipts" onClose={onClose}>
      {ids === null ? (
        <Loading error={receipts.error} />
      ) : ids.length === 0 ? (
        <p role="status">No one has read this message yet.</p>
      ) : (
        <>
          <p role="status">{ids.length === 1 ? "This message has been read by 1 person:" : `This message has been read by ${ids.length} people:`}</p>
          <ul class="read-receipts" aria-label="Read by">
            {ids.map((id) => (
              <li key={id}>
                <span class="avatar" aria-hidden="true">
                  <AvatarImage userId={id} name={userName(id)} />
                </span>
                <span class="name">{userName(id)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Modal>
  );
}

/** Zulip's reasons for a report; "other" needs a description. */
const REASONS: [string, string][] = [
  ["spam", "Spam"],
  ["harassment", "Harassment"],
  ["inappropriate", "Inappropriate content"],
  ["norms", "Violates community norms"],
  ["other", "Other reason"],
];

export function ReportDialog({ m, onClose }: { m: Message; onClose: () => void }) {
  const [reason, setReason] = useState("spam");
  const [description, setDescription] = useState("");
  const [sent, setSent] = useState(false);
  const { busy, error, run } = useAction(() => setSent(true));
  return (
    <Modal title="Report message" onClose={onClose}>
      {sent ? (
        <>
          <p role="status">Thank you. The moderators have been told about this message.</p>
          <footer>
            <button type="button" onClick={onClose}>
              Close
            </button>
          </footer>
        </>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(() => reportMessage(m.id, reason, description.trim()));
          }}
        >
          <p class="hint">The organization's moderators will see the message, who sent it and why you report it.</p>
          <div class="field">
            <label for="report-reason">Reason</label>
            <select id="report-reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)}>
              {REASONS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="report-description">{reason === "other" ? "Explanation" : "Explanation (optional)"}</label>
            <textarea id="report-description" maxLength={1000} required={reason === "other"} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
          </div>
          <DialogActions error={error} busy={busy} onCancel={onClose} confirm="Report" busyLabel="Reporting…" />
        </form>
      )}
    </Modal>
  );
}

export function DeleteDialog({ m, onClose }: { m: Message; onClose: () => void }) {
  const { busy, error, run } = useAction(onClose);
  return (
    <Modal title="Delete message?" onClose={onClose}>
      <p>Deleting the message removes it for everyone. This cannot be undone.</p>
      <DialogActions error={error} busy={busy} onCancel={onClose} confirm="Delete" busyLabel="Deleting…" danger onConfirm={() => void run(() => deleteMessage(m.id))} />
    </Modal>
  );
}

/** Where the browser will not let the page write to the clipboard (plain HTTP on a LAN): the link, selected, to copy by hand. */
export function LinkDialog({ url, onClose }: { url: string; onClose: () => void }) {
  return (
    <Modal title="Link to message" onClose={onClose}>
      <label class="sr-only" for="message-link">
        Link to message
      </label>
      <input id="message-link" class="link-field" readOnly value={url} autoFocus onFocus={(e) => e.currentTarget.select()} />
      <p class="hint">Copy it with Ctrl+C (⌘C on a Mac).</p>
    </Modal>
  );
}
