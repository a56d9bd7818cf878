/**
 * The organization's default channels, which new members join. Zulip has no GET for them: the
 * list is the model's, from /register's realm_default_streams and each `default_streams` event,
 * so a change made here or by another administrator shows when its event arrives.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { Rendered } from "../../components/Rendered";
import { model, useModel } from "../../model";
import { byName, Field, useResult } from "./form";

export function DefaultChannels() {
  useModel();
  const { run, view } = useResult();
  const [choice, setChoice] = useState(0);
  const defaults = [...model.defaultChannelIds].map((id) => model.streams.get(id) ?? { stream_id: id, name: `Channel ${id}`, rendered_description: "" }).sort(byName);
  // The server refuses private channels as defaults, so they are not offered.
  const candidates = [...model.streams.values()].filter((s) => !s.invite_only && !s.is_archived && !model.defaultChannelIds.has(s.stream_id)).sort(byName);
  // The picked channel leaves the list once it is a default; the picker moves to the first left.
  const picked = candidates.some((s) => s.stream_id === choice) ? choice : candidates[0]?.stream_id;
  const add = (e: Event) => {
    e.preventDefault();
    if (picked !== undefined) void run(() => api("POST", "/default_streams", { stream_id: picked }), "Added.");
  };
  return (
    <>
      <table class="default-channels">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Description</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {defaults.map((s) => (
            <tr key={s.stream_id}>
              <td>#{s.name}</td>
              <td>
                <Rendered class="default-channel-description" html={s.rendered_description} />
              </td>
              <td>
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Remove ${s.name} from the default channels`}
                  onClick={() => void run(() => api("DELETE", "/default_streams", { stream_id: s.stream_id }), "Removed.")}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!defaults.length && <p>New members join no channel.</p>}
      <form class="default-channel-add" onSubmit={add}>
        <Field id="default-channel-add" label="Channel to add">
          <select id="default-channel-add" value={picked} disabled={!candidates.length} onChange={(e) => setChoice(Number(e.currentTarget.value))}>
            {candidates.map((s) => (
              <option key={s.stream_id} value={s.stream_id}>
                {s.name}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={!candidates.length}>
          Add default channel
        </button>
      </form>
      {view}
    </>
  );
}
