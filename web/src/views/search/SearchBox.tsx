/**
 * The search box of the top bar, with Zulip's suggestions as one types: arrow keys move through
 * them, Enter or a tap takes one (a finished search runs at once; an operator waits for its
 * operand), Tab completes the text without searching, Enter on the text searches it, Escape
 * closes the list. The box shows the narrow in view as search text.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { model, streamName } from "../../model";
import { go, resolvers } from "../../navigate";
import { loadTopics } from "../../messages";
import { narrowToSearch, parseSearch } from "../../state/narrow";
import { channelBefore, splitLastWord, suggest, type SuggestContext, type Suggestion } from "../../state/search_suggest";
import "./search.css";

/** What the suggestions may offer: one's channels first, then the others one can see; active people. */
function context(): SuggestContext {
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
  const visible = [...model.streams.values()].filter((s) => !s.is_archived);
  const mine = visible.filter((s) => model.subs.has(s.stream_id)).sort(byName);
  const others = visible.filter((s) => !model.subs.has(s.stream_id)).sort(byName);
  return {
    channels: [...mine, ...others].map((s) => ({ id: s.stream_id, name: s.name })),
    topics: (id) => [...(model.topics.get(id)?.keys() ?? [])].reverse(),
    people: [...model.users.values()]
      .filter((u) => u.is_active)
      .map((u) => ({ id: u.user_id, name: u.full_name, email: u.email }))
      .sort(byName),
  };
}

const resolveUser = (who: string) => (who.toLowerCase() === "me" ? model.me.user_id : resolvers.userByEmail(who));

/** Runs a search: `near:ID` is where the narrow opens, not a term of it. */
function search(text: string): void {
  const terms = parseSearch(text, resolvers.channelByName, resolveUser);
  const near = terms.find((t) => t.operator === "near" && !t.negated && /^\d+$/.test(String(t.operand)));
  go(
    terms.filter((t) => t !== near),
    near ? Number(near.operand) : undefined,
  );
}

const LIST_ID = "search-suggestions";

export function SearchBox() {
  const [text, setText] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const input = useRef<HTMLInputElement>(null);
  const fetchedTopics = useRef(new Set<number>());

  useEffect(() => {
    // Someone already typing a search keeps their text when the narrow they left finishes opening.
    if (document.activeElement !== input.current) setText(narrowToSearch(model.narrow, (id) => streamName(id), (id) => model.users.get(id)?.email ?? String(id)));
  }, [model.view, JSON.stringify(model.narrow)]);

  const ctx = context();
  const suggestions = open ? suggest(text, ctx) : [];
  const { before, word } = splitLastWord(text);

  // A topic being typed after a channel: that channel's topics from the server, beyond those seen.
  const channel = /^-?(topic|subject):/i.test(word) ? channelBefore(before, ctx) : undefined;
  useEffect(() => {
    if (!channel || !model.subs.has(channel.id) || fetchedTopics.current.has(channel.id)) return;
    fetchedTopics.current.add(channel.id);
    void loadTopics(channel.id).catch(() => fetchedTopics.current.delete(channel.id));
  }, [channel?.id]);

  const edit = (next: string) => {
    setText(next);
    setActive(-1);
    setOpen(true);
  };
  const run = (t: string) => {
    setOpen(false);
    setActive(-1);
    input.current?.blur();
    search(t);
  };
  /** Enter or a tap runs a finished search; Tab, or an operator awaiting its operand, only fills the box. */
  const take = (s: Suggestion, andRun: boolean) => {
    if (s.complete && andRun) return run(s.text);
    edit(s.complete ? `${s.text} ` : s.text);
    input.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!open) return edit(text);
      if (!suggestions.length) return;
      e.preventDefault();
      // Past either end is the text itself (-1), as typed.
      const next = active + (e.key === "ArrowDown" ? 1 : -1);
      setActive(next >= suggestions.length ? -1 : next < -1 ? suggestions.length - 1 : next);
    } else if (e.key === "Enter" && active >= 0 && suggestions[active]) {
      e.preventDefault();
      take(suggestions[active], true);
    } else if (e.key === "Tab" && !e.shiftKey && open) {
      // Tab completes the chosen suggestion, else the first that adds to the text.
      const s = suggestions[active] ?? suggestions.find((x) => x.text !== text);
      if (!s) return;
      e.preventDefault();
      take(s, false);
    } else if (e.key === "Escape" && open && suggestions.length) {
      // The first Escape closes the list; the next leaves the box (the page's key handler).
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      setActive(-1);
    }
  };

  const shown = open && suggestions.length > 0;
  return (
    <form
      class="search"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        run(text);
      }}
    >
      <label for="search" class="sr-only">
        Search messages
      </label>
      <input
        ref={input}
        id="search"
        type="search"
        autocomplete="off"
        spellcheck={false}
        placeholder="Search (channel: topic: sender: is:starred …)"
        role="combobox"
        // Preact's types ask a combobox input for a datalist; the list here is the listbox below.
        list={undefined}
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={LIST_ID}
        aria-activedescendant={shown && active >= 0 ? `search-suggestion-${active}` : undefined}
        value={text}
        onInput={(e) => edit(e.currentTarget.value)}
        onFocus={() => !text.trim() && edit(text)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      {shown && (
        <ul
          id={LIST_ID}
          class="search-suggestions"
          role="listbox"
          aria-label="Search suggestions"
          // Keeps the focus in the box, so a tap is taken before the list closes on blur.
          onMouseDown={(e) => e.preventDefault()}
        >
          {suggestions.map((s, i) => (
            <li
              key={s.text}
              id={`search-suggestion-${i}`}
              role="option"
              aria-selected={i === active}
              class={i === active ? "active" : undefined}
              onClick={() => take(s, true)}
              onMouseMove={() => i !== active && setActive(i)}
            >
              <span class="search-suggestion-description">{s.description}</span>
              <span class="search-suggestion-text">{s.text.slice(before.length) || s.text}</span>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
