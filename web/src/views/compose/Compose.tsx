/**
 * The compose box: to a channel and topic or to people; Markdown preview through
 * /messages/render; @-mention, #-channel and :emoji: completion; uploads by paste, drop or
 * button; typing notices; drafts kept on the server; saved snippets; scheduling.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { model, changed, dmKeyOf, messageDmKey, streamName, userName, type Message } from "../../model";
import { searchEmoji, codeToChar } from "../../emoji";
import { Rendered } from "../../components/Rendered";
import { RecipientPills } from "./RecipientPills";

interface Target {
  kind: "stream" | "dm";
  streamId?: number;
  topic: string;
  to: number[];
}

export const compose = {
  open: false,
  target: { kind: "stream", topic: "", to: [] } as Target,
  content: "",
  draftId: 0,
  /** The scheduled message being edited (views/scheduled): sending saves it there, PATCH, instead of sending anew. */
  scheduledId: 0,
};

/** Opens the box for a new message or a reply; focus goes to the first empty field. */
export function openCompose(target: Partial<Target> & { kind: Target["kind"] }, content = "") {
  compose.open = true;
  compose.target = { topic: "", to: [], ...target };
  compose.content = content;
  compose.draftId = 0;
  compose.scheduledId = 0;
  changed();
  requestAnimationFrame(() => {
    const want = target.kind === "stream" ? (target.streamId === undefined ? "compose-channel" : target.topic ? "compose-content" : "compose-topic") : target.to?.length ? "compose-content" : "compose-to";
    document.getElementById(want)?.focus();
  });
}

/** A reply to a message's conversation (a DM to oneself stays one). */
export function replyTo(m: Message, content = "") {
  if (m.type === "stream") openCompose({ kind: "stream", streamId: m.stream_id, topic: m.subject }, content);
  else openCompose({ kind: "dm", to: messageDmKey(m).split(",").map(Number) }, content);
}

/** Closes the box; unsent text is kept as a draft on the server. */
export async function closeCompose(saveDraft = true) {
  const { content, target, draftId, scheduledId } = compose;
  compose.open = false;
  compose.scheduledId = 0;
  changed();
  // An unsaved edit of a scheduled message is dropped: the message itself still holds the text.
  if (!saveDraft || !content.trim() || scheduledId) return;
  const draft = {
    type: target.kind === "stream" ? "stream" : "private",
    to: target.kind === "stream" ? (target.streamId !== undefined ? [target.streamId] : []) : target.to,
    topic: target.kind === "stream" ? target.topic : "",
    content,
    timestamp: Math.floor(Date.now() / 1000),
  };
  if (draftId) await api("PATCH", `/drafts/${draftId}`, { draft });
  else await api("POST", "/drafts", { drafts: [draft] });
}

interface Suggestion {
  label: string;
  insert: string;
  icon?: string;
}

/** What the word before the caret asks to complete, and where that word starts. */
function completionContext(text: string, caret: number): { kind: "user" | "channel" | "emoji"; query: string; from: number } | null {
  const before = text.slice(0, caret);
  const m = /(?:^|\s)(@\*{0,2}|#\*{0,2}|:)([^\s@#:*]*)$/.exec(before);
  if (!m) return null;
  const from = caret - m[1].length - m[2].length;
  const kind = m[1].startsWith("@") ? "user" : m[1].startsWith("#") ? "channel" : "emoji";
  if (kind === "emoji" && m[2].length < 2) return null;
  return { kind, query: m[2].toLowerCase(), from };
}

async function suggestionsFor(kind: "user" | "channel" | "emoji", query: string): Promise<Suggestion[]> {
  if (kind === "user") {
    return [...model.users.values()]
      .filter((u) => u.is_active && (u.full_name.toLowerCase().includes(query) || u.email.toLowerCase().includes(query)))
      .slice(0, 8)
      .map((u) => ({ label: `${u.full_name} (${u.email})`, insert: `@**${u.full_name}** ` }));
  }
  if (kind === "channel") {
    return [...model.streams.values()]
      .filter((s) => s.name.toLowerCase().includes(query))
      .slice(0, 8)
      .map((s) => ({ label: `#${s.name}`, insert: `#**${s.name}** ` }));
  }
  return (await searchEmoji(query, 8)).map((e) => ({ label: `:${e.name}:`, insert: `:${e.name}: `, icon: e.url ? undefined : codeToChar(e.code) }));
}

let lastTypingStart = 0;
function typingParams(t: Target) {
  return t.kind === "stream" ? { type: "stream", stream_id: t.streamId, topic: t.topic } : { type: "direct", to: t.to };
}
function noteTyping(t: Target) {
  if ((t.kind === "stream" && (t.streamId === undefined || !t.topic)) || (t.kind === "dm" && !t.to.length)) return;
  // Zulip's clients renew the notice every 10 seconds while the person keeps typing.
  if (Date.now() - lastTypingStart < 10000) return;
  lastTypingStart = Date.now();
  void api("POST", "/typing", { op: "start", ...typingParams(t) }).catch(() => {});
}
function stopTyping(t: Target) {
  if (!lastTypingStart) return;
  lastTypingStart = 0;
  void api("POST", "/typing", { op: "stop", ...typingParams(t) }).catch(() => {});
}

export function Compose() {
  const [preview, setPreview] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(0);
  const [scheduleAt, setScheduleAt] = useState("");
  const [menu, setMenu] = useState<"" | "drafts" | "snippets" | "schedule">("");
  const textarea = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const t = compose.target;

  useEffect(() => {
    setPreview(null);
    setError("");
  }, [compose.open, t.kind, t.to.join(",")]);

  if (!compose.open) {
    return (
      <div class="compose-closed">
        <button type="button" onClick={() => openCompose(defaultTarget())}>
          Start new conversation
        </button>
        <button type="button" onClick={() => openCompose({ kind: "dm" })}>
          New direct message
        </button>
      </div>
    );
  }

  const setContent = (value: string) => {
    compose.content = value;
    changed();
  };

  const insertAtCaret = (text: string) => {
    const el = textarea.current;
    const at = el ? el.selectionStart : compose.content.length;
    setContent(compose.content.slice(0, at) + text + compose.content.slice(el ? el.selectionEnd : at));
    requestAnimationFrame(() => el?.setSelectionRange(at + text.length, at + text.length));
  };

  const refreshSuggestions = async () => {
    const el = textarea.current;
    if (!el) return;
    const ctx = completionContext(el.value, el.selectionStart);
    setSuggestions(ctx ? await suggestionsFor(ctx.kind, ctx.query) : []);
    setActive(0);
  };

  const accept = (s: Suggestion) => {
    const el = textarea.current!;
    const ctx = completionContext(el.value, el.selectionStart);
    if (!ctx) return;
    const next = el.value.slice(0, ctx.from) + s.insert + el.value.slice(el.selectionStart);
    setContent(next);
    setSuggestions([]);
    const caret = ctx.from + s.insert.length;
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(caret, caret);
    });
  };

  const upload = async (files: FileList | File[]) => {
    for (const file of files) {
      const placeholder = `[Uploading ${file.name}…]()`;
      insertAtCaret(placeholder);
      const form = new FormData();
      form.append("file", file, file.name);
      try {
        const r = await api<{ url: string; filename?: string }>("POST", "/user_uploads", {}, { body: form });
        setContent(compose.content.replace(placeholder, `[${r.filename ?? file.name}](${r.url})`));
      } catch (e) {
        setContent(compose.content.replace(placeholder, ""));
        setError(`Upload failed: ${(e as Error).message}`);
      }
    }
  };

  const recipientParams = () => {
    if (t.kind === "stream") {
      if (t.streamId === undefined) throw new Error("Choose a channel.");
      return { type: "stream", to: t.streamId, topic: t.topic };
    }
    if (!t.to.length) throw new Error("Choose at least one recipient.");
    return { type: "direct", to: t.to };
  };

  const send = async () => {
    if (!compose.content.trim() || busy) return;
    setBusy(true);
    setError("");
    try {
      if (compose.scheduledId) await api("PATCH", `/scheduled_messages/${compose.scheduledId}`, { ...recipientParams(), content: compose.content });
      else await api("POST", "/messages", { ...recipientParams(), content: compose.content });
      stopTyping(t);
      if (compose.draftId) void api("DELETE", `/drafts/${compose.draftId}`).catch(() => {});
      compose.content = "";
      compose.draftId = 0;
      compose.scheduledId = 0;
      setPreview(null);
      changed();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const schedule = async () => {
    const when = Math.floor(new Date(scheduleAt).getTime() / 1000);
    if (!when) return setError("Choose when to send it.");
    try {
      const p = recipientParams();
      await api(compose.scheduledId ? "PATCH" : "POST", compose.scheduledId ? `/scheduled_messages/${compose.scheduledId}` : "/scheduled_messages", {
        type: p.type,
        to: p.to,
        topic: p.type === "stream" ? (p as { topic: string }).topic : undefined,
        content: compose.content,
        scheduled_delivery_timestamp: when,
      });
      compose.content = "";
      compose.scheduledId = 0;
      setMenu("");
      changed();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const togglePreview = async () => {
    if (preview !== null) return setPreview(null);
    try {
      const r = await api<{ rendered: string }>("POST", "/messages/render", { content: compose.content || " " });
      setPreview(r.rendered);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (suggestions.length) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setActive((active + (e.key === "ArrowDown" ? 1 : suggestions.length - 1)) % suggestions.length);
        return;
      }
      if (e.key === "Enter" || e.key === "Tab") {
        e.preventDefault();
        accept(suggestions[active]);
        return;
      }
      if (e.key === "Escape") {
        setSuggestions([]);
        e.stopPropagation();
        return;
      }
    }
    const enterSends = model.settings.enter_sends === true;
    if (e.key === "Enter" && ((enterSends && !e.shiftKey) || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void send();
    }
  };

  const typists = [...(model.typing.get(t.kind === "stream" ? `${t.streamId}:${t.topic}` : `dm:${dmKeyOf(t.to)}`) ?? [])];
  const drafts = [...model.drafts.values()] as { id: number; content: string; topic?: string; type: string; to: number[] }[];

  return (
    <form
      class="compose"
      aria-label="Compose message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        if (e.dataTransfer?.files.length) {
          e.preventDefault();
          void upload(e.dataTransfer.files);
        }
      }}
    >
      <div class="recipient">
        {t.kind === "stream" ? (
          <>
            <label for="compose-channel">Channel</label>
            <select
              id="compose-channel"
              value={t.streamId ?? ""}
              onChange={(e) => {
                compose.target = { ...t, streamId: Number(e.currentTarget.value) };
                changed();
              }}
            >
              <option value="" disabled>
                Choose a channel
              </option>
              {[...model.subs.values()]
                .sort((a, b) => a.name.localeCompare(b.name))
                .map((s) => (
                  <option key={s.stream_id} value={s.stream_id}>
                    {s.name}
                  </option>
                ))}
            </select>
            <label for="compose-topic">Topic</label>
            <input
              id="compose-topic"
              value={t.topic}
              maxLength={60}
              onInput={(e) => {
                compose.target = { ...t, topic: e.currentTarget.value };
                changed();
              }}
            />
          </>
        ) : (
          <>
            <label for="compose-to">To</label>
            <RecipientPills
              to={t.to}
              onChange={(to) => {
                compose.target = { ...compose.target, to };
                changed();
              }}
            />
          </>
        )}
        <button type="button" class="close" aria-label="Close compose box (keeps a draft)" onClick={() => void closeCompose()}>
          ×
        </button>
      </div>
      <div class="editor">
        <label for="compose-content" class="sr-only">
          Message
        </label>
        {preview !== null ? (
          <Rendered class="preview" label="Preview" html={preview} />
        ) : (
          <textarea
            id="compose-content"
            ref={textarea}
            value={compose.content}
            placeholder={t.kind === "stream" ? `Message #${streamName(t.streamId)} > ${t.topic}` : "Direct message"}
            aria-autocomplete="list"
            aria-controls="compose-suggestions"
            onInput={(e) => {
              setContent(e.currentTarget.value);
              noteTyping(t);
              void refreshSuggestions();
            }}
            onKeyDown={onKeyDown}
            onBlur={() => stopTyping(t)}
            onPaste={(e) => {
              const files = e.clipboardData?.files;
              if (files?.length) {
                e.preventDefault();
                void upload(files);
              }
            }}
          />
        )}
        {suggestions.length > 0 && (
          <ul id="compose-suggestions" class="suggestions" role="listbox" aria-label="Suggestions">
            {suggestions.map((s, i) => (
              <li key={s.label} role="option" aria-selected={i === active} class={i === active ? "active" : ""} onMouseDown={(e) => (e.preventDefault(), accept(s))}>
                {s.icon && <span aria-hidden="true">{s.icon} </span>}
                {s.label}
              </li>
            ))}
          </ul>
        )}
      </div>
      {typists.length > 0 && <p class="typing">{typists.map(userName).join(", ")} is typing…</p>}
      {compose.scheduledId > 0 && <p class="typing compose-scheduled-note">Editing a scheduled message: Save keeps its time, Schedule picks a new one.</p>}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="controls">
        <button type="submit" disabled={busy}>
          {compose.scheduledId ? "Save" : "Send"}
        </button>
        <button type="button" class="secondary" onClick={() => void togglePreview()} aria-pressed={preview !== null}>
          {preview !== null ? "Edit" : "Preview"}
        </button>
        <button type="button" class="secondary" onClick={() => fileInput.current?.click()}>
          Upload files
        </button>
        <input ref={fileInput} type="file" multiple hidden onChange={(e) => e.currentTarget.files && void upload(e.currentTarget.files)} aria-label="Upload files" />
        <button type="button" class="secondary" aria-expanded={menu === "snippets"} onClick={() => setMenu(menu === "snippets" ? "" : "snippets")}>
          Snippets
        </button>
        <button type="button" class="secondary" aria-expanded={menu === "drafts"} onClick={() => setMenu(menu === "drafts" ? "" : "drafts")}>
          Drafts ({drafts.length})
        </button>
        <button type="button" class="secondary" aria-expanded={menu === "schedule"} onClick={() => setMenu(menu === "schedule" ? "" : "schedule")}>
          Schedule
        </button>
      </div>
      {menu === "snippets" && (
        <ul class="menu" aria-label="Saved snippets">
          {model.snippets.length === 0 && <li>No saved snippets.</li>}
          {model.snippets.map((s) => (
            <li key={s.id}>
              <button type="button" onClick={() => (insertAtCaret(s.content), setMenu(""))}>
                {s.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      {menu === "drafts" && (
        <ul class="menu" aria-label="Drafts">
          {drafts.length === 0 && <li>No drafts.</li>}
          {drafts.map((d) => (
            <li key={d.id}>
              <button
                type="button"
                onClick={() => {
                  compose.target = d.type === "stream" ? { kind: "stream", streamId: d.to[0], topic: d.topic ?? "", to: [] } : { kind: "dm", topic: "", to: d.to };
                  compose.content = d.content;
                  compose.draftId = d.id;
                  setMenu("");
                  changed();
                }}
              >
                {d.type === "stream" ? `#${streamName(d.to[0])} > ${d.topic}` : `To ${d.to.map(userName).join(", ")}`}: {d.content.slice(0, 60)}
              </button>
            </li>
          ))}
        </ul>
      )}
      {menu === "schedule" && (
        <div class="menu">
          <label for="schedule-at">Send at</label>
          <input id="schedule-at" type="datetime-local" value={scheduleAt} onInput={(e) => setScheduleAt(e.currentTarget.value)} />
          <button type="button" onClick={() => void schedule()}>
            Schedule message
          </button>
          {model.scheduled.length > 0 && <p>{model.scheduled.length} scheduled.</p>}
        </div>
      )}
    </form>
  );
}

/** A new message goes where the reader is: the channel and topic in view, else the first channel. */
export function defaultTarget(): Target {
  const channel = model.narrow.find((x) => x.operator === "channel")?.operand;
  const topic = model.narrow.find((x) => x.operator === "topic")?.operand;
  const dm = model.narrow.find((x) => x.operator === "dm")?.operand;
  if (Array.isArray(dm)) return { kind: "dm", topic: "", to: dm };
  const first = [...model.subs.values()].sort((a, b) => a.name.localeCompare(b.name))[0];
  return { kind: "stream", streamId: typeof channel === "number" ? channel : first?.stream_id, topic: typeof topic === "string" ? topic : "", to: [] };
}
