/**
 * A direct message's "To" field, as Zulip's: the chosen people as pills (× removes one), and a
 * typeahead of active people by name or email. Arrow keys move through it, Enter, Tab or a comma
 * choose, Backspace in the empty field removes the last pill, Escape closes the list (a second
 * Escape closes the compose box). Pasted addresses become pills when they name someone.
 */
import "./compose.css";
import { useState } from "preact/hooks";
import { findUser, model, userName, type User } from "../../model";
import { AvatarImage } from "../../components/Avatar";
import { visibleEmail } from "../people/card";
import { matchRecipients, splitTyped } from "./recipients";

export function RecipientPills({ to, onChange }: { to: number[]; onChange: (to: number[]) => void }) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [closed, setClosed] = useState(false);
  const matches = closed ? [] : matchRecipients<User>(model.users.values(), query, to);
  const at = Math.min(active, Math.max(0, matches.length - 1));

  const add = (people: User[], rest = "") => {
    onChange([...to, ...people.map((u) => u.user_id).filter((id) => !to.includes(id))]);
    setQuery(rest);
    setActive(0);
  };

  const typed = (text: string) => {
    setClosed(false);
    setActive(0);
    if (!text.includes(",")) return setQuery(text);
    const { found, rest } = splitTyped(text, findUser);
    add(found, rest);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const choose = () => {
      e.preventDefault();
      add([matches[at]]);
    };
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!matches.length) return;
      e.preventDefault();
      setActive((at + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
    } else if (e.key === "Enter") {
      // Enter here never sends the message.
      e.preventDefault();
      if (matches.length) choose();
      else if (query.trim()) {
        const { found, rest } = splitTyped(query, findUser, true);
        add(found, rest);
      }
    } else if ((e.key === "Tab" && !e.shiftKey) || e.key === ",") {
      if (matches.length && query.trim()) choose();
    } else if (e.key === "Backspace") {
      const el = e.currentTarget as HTMLInputElement;
      if (!query && el.selectionStart === 0 && to.length) {
        e.preventDefault();
        onChange(to.slice(0, -1));
      }
    } else if (e.key === "Escape" && matches.length) {
      e.stopPropagation();
      setClosed(true);
    }
  };

  const listId = "compose-to-suggestions";
  return (
    <div class="recipient-pills" onClick={(e) => (e.currentTarget.querySelector("input") as HTMLInputElement).focus()}>
      <ul class="pills" aria-label="Recipients">
        {to.map((id) => {
          const u = model.users.get(id);
          const name = u?.full_name ?? userName(id);
          return (
            <li key={id} class={`pill${u && !u.is_active ? " deactivated" : ""}`} title={u && !u.is_active ? `${name} (deactivated)` : u && visibleEmail(u)}>
              <span class="pill-name">{name}</span>
              <button type="button" tabIndex={-1} aria-label={`Remove ${name}`} onClick={() => onChange(to.filter((x) => x !== id))}>
                ×
              </button>
            </li>
          );
        })}
      </ul>
      <input
        id="compose-to"
        value={query}
        placeholder={to.length ? "" : "Add one or more people"}
        autoComplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={matches.length > 0}
        aria-controls={listId}
        aria-activedescendant={matches.length ? `${listId}-${matches[at].user_id}` : undefined}
        onInput={(e) => typed(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        onBlur={() => setClosed(true)}
        onFocus={() => setClosed(false)}
      />
      {matches.length > 0 && (
        <ul id={listId} class="suggestions recipient-suggestions" role="listbox" aria-label="People">
          {matches.map((u, i) => (
            <li
              key={u.user_id}
              id={`${listId}-${u.user_id}`}
              role="option"
              aria-selected={i === at}
              class={i === at ? "active" : ""}
              onMouseDown={(e) => {
                e.preventDefault();
                add([u]);
              }}
            >
              <span class="avatar" aria-hidden="true">
                <AvatarImage userId={u.user_id} name={u.full_name} />
              </span>
              <span class="pill-name">{u.full_name}</span> <small>{visibleEmail(u)}</small>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
