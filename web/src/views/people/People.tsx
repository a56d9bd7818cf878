/**
 * Right sidebar: the organization's people, active first, with presence and status. A name opens
 * the direct messages with that person, as in Zulip; the "⋮" beside it opens their user card.
 */
import { useState } from "preact/hooks";
import { model } from "../../model";
import { go } from "../../navigate";
import { presenceState } from "./card";
import { UserCard, useUserCard } from "./UserCard";
import { Avatar } from "../../components/Avatar";

export const presenceOf = (userId: number) => presenceState(model.presence.get(userId), Date.now() / 1000);

const ORDER = { active: 0, idle: 1, offline: 2 };

export function People() {
  const [filter, setFilter] = useState("");
  const cards = useUserCard();
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
          const open = cards.card?.userId === u.user_id;
          return (
            <li key={u.user_id}>
              <button type="button" onClick={() => go([{ operator: "dm", operand: [u.user_id] }])} title={`${u.full_name} (${p})`}>
                <Avatar userId={u.user_id} name={u.full_name} class="people-avatar" />
                <span class={`presence ${p}`} role="img" aria-label={p} />
                <span class="name">{u.full_name}</span>
                {status && <span class="status">{status}</span>}
              </button>
              <button
                type="button"
                class="card-button"
                aria-label={`User card: ${u.full_name}`}
                title="User card"
                aria-haspopup="menu"
                aria-expanded={open}
                onClick={(e) => cards.toggle(u.user_id, e.currentTarget)}
              >
                ⋮
              </button>
            </li>
          );
        })}
      </ul>
      {cards.card && <UserCard userId={cards.card.userId} anchor={cards.card.anchor} onClose={cards.close} />}
    </aside>
  );
}
