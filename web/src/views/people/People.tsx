/** Right sidebar: the organization's people, active first, with presence and status. */
import { useState } from "preact/hooks";
import { model } from "../../model";
import { go } from "../../navigate";

// Zulip counts someone as offline after 140 seconds without a presence report.
const OFFLINE_AFTER_SECS = 140;

export function presenceOf(userId: number): "active" | "idle" | "offline" {
  const p = model.presence.get(userId);
  const now = Date.now() / 1000;
  if (!p) return "offline";
  if (now - p.active_timestamp < OFFLINE_AFTER_SECS) return "active";
  if (now - p.idle_timestamp < OFFLINE_AFTER_SECS) return "idle";
  return "offline";
}

const ORDER = { active: 0, idle: 1, offline: 2 };

export function People() {
  const [filter, setFilter] = useState("");
  const q = filter.toLowerCase();
  const people = [...model.users.values()]
    .filter((u) => u.is_active && !u.is_bot && (!q || u.full_name.toLowerCase().includes(q)))
    .map((u) => ({ u, p: presenceOf(u.user_id) }))
    .sort((a, b) => ORDER[a.p] - ORDER[b.p] || a.u.full_name.localeCompare(b.u.full_name));
  return (
    <aside class="right-sidebar" aria-label="People">
      <label for="people-filter" class="sr-only">
        Filter people
      </label>
      <input id="people-filter" type="search" placeholder="Filter people" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      <ul class="people">
        {people.map(({ u, p }) => {
          const status = model.userStatus.get(u.user_id)?.status_text;
          return (
            <li key={u.user_id}>
              <button type="button" onClick={() => go([{ operator: "dm", operand: [u.user_id] }])} title={`${u.full_name} (${p})`}>
                <span class={`presence ${p}`} role="img" aria-label={p} />
                <span class="name">{u.full_name}</span>
                {status && <span class="status">{status}</span>}
              </button>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
