/**
 * One channel beside the list, in Zulip's three sections: General (description, access, who may
 * post, how many subscribe), Personal (a subscriber's own colour, muting, pinning and
 * notifications) and Subscribers (who they are). Each change is sent at once; the `subscription`
 * update event brings it back into the model.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { model, userName, type Subscription } from "../../model";
import { useFetched } from "../../components/useFetched";
import type { ChannelSection } from "../../state/hash";
import { ErrorLine } from "../../components/DialogActions";
import { Rendered } from "../../components/Rendered";
import { NOTIFICATIONS, groupSettingText, privacyLabel, privacyOf, PRIVACY_CHOICES, subscriberCount } from "./channelInfo";
import { setSubscriptionProperty, type SubscriptionProperty } from "../../messages";
import { PeopleIcon, PrivacyIcon } from "./icons";
import { ChannelLink, SubscribeButton } from "./parts";

/** An input of type color takes #rrggbb only; Zulip also stores #rgb. */
function sixDigits(color: string): string {
  const c = color.trim().toLowerCase();
  if (/^#[0-9a-f]{3}$/.test(c)) return `#${c[1]}${c[1]}${c[2]}${c[2]}${c[3]}${c[3]}`;
  return /^#[0-9a-f]{6}$/.test(c) ? c : "#c2c2c2";
}

function PersonalSettings({ sub }: { sub: Subscription }) {
  const [error, setError] = useState("");
  const id = sub.stream_id;
  const save = (property: SubscriptionProperty, value: boolean | string) => {
    setError("");
    setSubscriptionProperty(id, property, value).catch((e: Error) => setError(e.message));
  };
  const check = (property: SubscriptionProperty, label: string, checked: boolean, hint?: string) => (
    <div class="channel-check" key={property}>
      <input id={`sub-${id}-${property}`} type="checkbox" checked={checked} onChange={(e) => save(property, e.currentTarget.checked)} />
      <label for={`sub-${id}-${property}`}>
        {label}
        {hint && <small> {hint}</small>}
      </label>
    </div>
  );
  return (
    <section class="channel-personal" aria-label="Personal settings">
      <div class="channel-color">
        <label for={`sub-${id}-color`}>Channel color</label>
        <input id={`sub-${id}-color`} type="color" value={sixDigits(sub.color)} onChange={(e) => save("color", e.currentTarget.value)} />
      </div>
      {check("is_muted", "Mute channel", sub.is_muted)}
      {check("pin_to_top", "Pin to top of the sidebar", sub.pin_to_top)}
      <h4>Notifications</h4>
      {NOTIFICATIONS.map(([property, userSetting, label]) => {
        const own = sub[property] as boolean | null | undefined;
        const value = own ?? model.settings[userSetting] === true;
        return check(property, label, value, own == null ? "(your default)" : undefined);
      })}
      <ErrorLine error={error} />
    </section>
  );
}

const SECTIONS: [ChannelSection, string][] = [
  ["general", "General"],
  ["personal", "Personal"],
  ["subscribers", "Subscribers"],
];

/** Who subscribes, by name, fetched when the section opens and again as the count changes (peer events). */
function Subscribers({ id }: { id: number }) {
  const { value, error } = useFetched(() => api<{ subscribers: number[] }>("GET", `/streams/${id}/members`), [id, subscriberCount(id)]);
  if (error) return <p class="channels-hint">{error}</p>;
  if (!value) return <p class="channels-hint">Loading…</p>;
  const people = value.subscribers.map((u) => ({ id: u, name: userName(u), email: model.users.get(u)?.email ?? "" })).sort((a, b) => a.name.localeCompare(b.name));
  if (!people.length) return <p class="channels-hint">Nobody is subscribed.</p>;
  return (
    <ul class="channel-subscribers" aria-label="Subscribers">
      {people.map((p) => (
        <li key={p.id}>
          <span class="channel-subscriber-name">{p.name}</span>
          {p.email && <span class="channels-hint">{p.email}</span>}
        </li>
      ))}
    </ul>
  );
}

export function ChannelSettings({ id, section, onSection }: { id: number; section: ChannelSection; onSection: (section: ChannelSection) => void }) {
  const s = model.streams.get(id);
  if (!s) return <p class="channels-hint">This channel no longer exists or is no longer visible to you.</p>;
  const sub = model.subs.get(id);
  const privacy = privacyOf(s);
  const count = subscriberCount(id);
  return (
    <article class="channel-settings" aria-label={`Channel ${s.name}`}>
      <header class="channel-settings-head">
        <span class={`channel-badge${sub ? " colored" : ""}`} style={sub ? { background: sub.color } : undefined}>
          <PrivacyIcon privacy={privacy} />
        </span>
        <h3>
          <ChannelLink stream={s}>{s.name}</ChannelLink>
        </h3>
        <SubscribeButton stream={s} />
      </header>
      <div class="channel-sections" role="tablist" aria-label="Channel settings sections">
        {SECTIONS.map(([key, label]) => (
          <button key={key} type="button" role="tab" id={`channel-section-${key}`} aria-selected={section === key} aria-controls="channel-section" onClick={() => section !== key && onSection(key)}>
            {label}
          </button>
        ))}
      </div>
      <div id="channel-section" role="tabpanel" aria-labelledby={`channel-section-${section}`}>
        {section === "general" ? (
          <>
            {s.rendered_description ? <Rendered class="channel-settings-description" html={s.rendered_description} /> : <p class="channels-hint">No description.</p>}
            <dl class="channel-facts">
              <dt>Access</dt>
              <dd>
                {privacyLabel(privacy)}. <span class="channels-hint">{PRIVACY_CHOICES.find((c) => c.value === privacy)!.hint}</span>
              </dd>
              {s.can_send_message_group !== undefined && (
                <>
                  <dt>Who can post</dt>
                  <dd>{groupSettingText(s.can_send_message_group)}</dd>
                </>
              )}
              {count !== undefined && (
                <>
                  <dt>Subscribers</dt>
                  <dd>
                    <PeopleIcon /> {count}
                  </dd>
                </>
              )}
            </dl>
          </>
        ) : section === "personal" ? (
          sub ? <PersonalSettings sub={sub} /> : <p class="channels-hint">Subscribe to choose its color and notifications.</p>
        ) : (
          <Subscribers id={id} />
        )}
      </div>
    </article>
  );
}
