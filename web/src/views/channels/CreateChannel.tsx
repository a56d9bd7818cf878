/**
 * Creating a channel: its name, description, who can read it, who can post, its first
 * subscribers (oneself to begin with) and whether to announce it. POST /channels/create refuses
 * a name in use; its refusal is shown under the form. Once the new channel's events have arrived,
 * it opens.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { model, streamName, userName, type User } from "../../model";
import { go } from "../../navigate";
import { ErrorLine } from "../../components/DialogActions";
import { moveFocusInList } from "../../components/listKeys";
import { useAction } from "../../components/Popover";
import { creatablePrivacies, PRIVACY_CHOICES, privacyParams, systemGroupId, type Privacy } from "./channelInfo";

const POSTERS: [group: string, label: string][] = [
  ["role:everyone", "Everyone"],
  ["role:moderators", "Administrators and moderators"],
  ["role:administrators", "Administrators only"],
];

/** How long to wait for the new channel's events before opening it anyway. */
const EVENT_WAIT_MS = 5000;

/** Leaves the overlay for the new channel's messages (showing a narrow closes the overlay). */
function openChannel(id: number) {
  go([{ operator: "channel", operand: id }]);
}

function matchingPeople(query: string, chosen: number[]): User[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return [...model.users.values()]
    .filter((u) => u.is_active && !chosen.includes(u.user_id))
    .filter((u) => [u.full_name, u.email, u.delivery_email ?? ""].some((x) => x.toLowerCase().includes(q)))
    .sort((a, b) => a.full_name.localeCompare(b.full_name))
    .slice(0, 6);
}

export function CreateChannel({ onCancel }: { onCancel: () => void }) {
  const privacies = creatablePrivacies();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [privacy, setPrivacy] = useState<Privacy>(privacies[0] ?? "public");
  const posters = POSTERS.map(([g, label]) => [systemGroupId(g), label] as const).filter(([id]) => id !== undefined);
  const [poster, setPoster] = useState(posters[0]?.[0]);
  const [chosen, setChosen] = useState<number[]>([model.me.user_id]);
  const [who, setWho] = useState("");
  const announceIn = Number(model.realmSettings.realm_new_stream_announcements_stream_id ?? -1);
  const canAnnounce = announceIn > 0 && model.streams.has(announceIn) && !privacy.startsWith("private");
  const [announce, setAnnounce] = useState(true);
  const { busy, error, run } = useAction(() => {});
  const [created, setCreated] = useState<number | null>(null);

  // Typing the name comes first (after the dialog has placed its own focus).
  useEffect(() => {
    const t = setTimeout(() => document.getElementById("new-channel-name")?.focus());
    return () => clearTimeout(t);
  }, []);

  // The channel opens once its `stream`/`subscription` events are in (its name is known then):
  // they change the model, which renders this again. Without them it opens after a while anyway.
  useEffect(() => {
    if (created !== null && model.streams.has(created)) openChannel(created);
  });
  useEffect(() => {
    if (created === null) return;
    const timer = setTimeout(() => openChannel(created), EVENT_WAIT_MS);
    return () => clearTimeout(timer);
  }, [created]);

  if (!privacies.length) return <p class="channels-hint">You may not create channels in this organization.</p>;

  const suggestions = matchingPeople(who, chosen);
  const add = (u: User) => {
    setChosen([...chosen, u.user_id]);
    setWho("");
    document.getElementById("new-channel-person")?.focus();
  };

  const submit = (e: Event) => {
    e.preventDefault();
    if (busy || created !== null) return;
    void run(async () => {
      if (!name.trim()) throw new Error("Choose a name for the channel.");
      const r = await api<{ id: number }>("POST", "/channels/create", {
        name: name.trim(),
        description: description.trim(),
        subscribers: chosen,
        ...privacyParams(privacy),
        announce: canAnnounce && announce,
        can_send_message_group: poster,
      });
      setCreated(r.id);
    });
  };

  return (
    <form class="create-channel" onSubmit={submit} aria-label="Create a channel">
      <h3>Create a channel</h3>
      <div class="field">
        <label for="new-channel-name">Name</label>
        <input id="new-channel-name" value={name} maxLength={60} required autoComplete="off" onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="new-channel-description">Description</label>
        <textarea id="new-channel-description" value={description} maxLength={1024} rows={2} onInput={(e) => setDescription(e.currentTarget.value)} />
      </div>
      <fieldset class="create-choices">
        <legend>Who can access the channel</legend>
        {PRIVACY_CHOICES.filter((c) => privacies.includes(c.value)).map((c) => (
          <div class="channel-check" key={c.value}>
            <input type="radio" id={`new-channel-${c.value}`} name="new-channel-privacy" checked={privacy === c.value} onChange={() => setPrivacy(c.value)} />
            <label for={`new-channel-${c.value}`}>
              {c.label}
              <small>{c.hint}</small>
            </label>
          </div>
        ))}
      </fieldset>
      {posters.length > 0 && (
        <div class="field">
          <label for="new-channel-posters">Who can post</label>
          <select id="new-channel-posters" value={String(poster)} onChange={(e) => setPoster(Number(e.currentTarget.value))}>
            {posters.map(([id, label]) => (
              <option key={id} value={String(id)}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      <fieldset class="create-choices">
        <legend>Subscribers</legend>
        <ul class="chosen-people" aria-label="Chosen subscribers">
          {chosen.map((id) => {
            const label = id === model.me.user_id ? `${model.users.get(id)?.full_name ?? model.me.full_name} (you)` : userName(id);
            return (
              <li key={id}>
                <span>{label}</span>
                <button type="button" aria-label={`Remove ${label}`} onClick={() => setChosen(chosen.filter((x) => x !== id))}>
                  ×
                </button>
              </li>
            );
          })}
        </ul>
        <label for="new-channel-person" class="sr-only">
          Add a subscriber
        </label>
        <input
          id="new-channel-person"
          type="search"
          placeholder="Add a person by name or email"
          autoComplete="off"
          value={who}
          onInput={(e) => setWho(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter") {
              e.preventDefault();
              if (suggestions[0]) add(suggestions[0]);
            } else if (e.key === "ArrowDown") {
              e.preventDefault();
              (e.currentTarget.parentElement?.querySelector(".person-suggestions button") as HTMLElement | null)?.focus();
            }
          }}
        />
        {suggestions.length > 0 && (
          <ul class="person-suggestions" aria-label="Matching people" onKeyDown={(e) => moveFocusInList(e, "button")}>
            {suggestions.map((u) => (
              <li key={u.user_id}>
                <button type="button" onClick={() => add(u)}>
                  {u.full_name} <small>{u.delivery_email || u.email}</small>
                </button>
              </li>
            ))}
          </ul>
        )}
      </fieldset>
      {canAnnounce && (
        <div class="channel-check">
          <input id="new-channel-announce" type="checkbox" checked={announce} onChange={(e) => setAnnounce(e.currentTarget.checked)} />
          <label for="new-channel-announce">Announce the new channel in #{streamName(announceIn)}</label>
        </div>
      )}
      <ErrorLine error={error} />
      <div class="create-actions">
        <button type="submit" disabled={busy || created !== null}>
          {created !== null ? "Opening…" : busy ? "Creating…" : "Create"}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
