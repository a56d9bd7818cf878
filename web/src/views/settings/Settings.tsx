/**
 * Settings in a dialog: one's own (profile, status, alert words, notifications, display) and,
 * for administrators, the organization's (channels, users, invitations, groups, folders,
 * linkifiers, playgrounds, default channels, the Welcome Bot message).
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Params } from "../../api";
import { findUser, isAdmin, model, type Stream, useModel, userName } from "../../model";
import { Avatar, ImageUpload, localImage } from "../../components/Avatar";
import { Bots } from "./Bots";
import { DefaultChannels } from "./DefaultChannels";
import { Field, ROLES, useResult } from "./form";
import { Invitations } from "./Invitations";
import { Notifications } from "./Notifications";
import "./settings.css";

type Tab = { id: string; label: string; admin?: boolean; view: () => preact.JSX.Element };

function Toggle({ name, label }: { name: string; label: string }) {
  const { run, view } = useResult();
  return (
    <div class="field check">
      <input id={`set-${name}`} type="checkbox" checked={model.settings[name] === true} onChange={(e) => void run(() => api("PATCH", "/settings", { [name]: e.currentTarget.checked }))} />
      <label for={`set-${name}`}>{label}</label>
      {view}
    </div>
  );
}

/** One's profile picture: uploaded ones can be removed (back to the initial); administrators may change theirs even when the organization forbids it. */
function ProfilePicture() {
  useModel();
  const me = model.users.get(model.me.user_id);
  const locked = model.realmSettings.realm_avatar_changes_disabled === true && !isAdmin();
  return (
    <ImageUpload
      label="Upload new profile picture"
      preview={<Avatar userId={model.me.user_id} name={model.me.full_name} class="settings-avatar" />}
      upload="/users/me/avatar"
      remove="/users/me/avatar"
      removable={localImage(me?.avatar_url)}
      disabled={locked ? "Avatar changes are disabled in this organization." : undefined}
    />
  );
}

function Profile() {
  const [name, setName] = useState(model.me.full_name);
  const [status, setStatus] = useState(model.userStatus.get(model.me.user_id)?.status_text ?? "");
  const saved = useResult();
  const statusSaved = useResult();
  return (
    <>
      <ProfilePicture />
      <form onSubmit={(e) => (e.preventDefault(), void saved.run(() => api("PATCH", "/settings", { full_name: name })))}>
        <Field id="set-full-name" label="Full name">
          <input id="set-full-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <button type="submit">Save name</button>
        {saved.view}
      </form>
      <form onSubmit={(e) => (e.preventDefault(), void statusSaved.run(() => api("POST", "/users/me/status", { status_text: status })))}>
        <Field id="set-status" label="Status">
          <input id="set-status" value={status} maxLength={60} onInput={(e) => setStatus(e.currentTarget.value)} />
        </Field>
        <button type="submit">Set status</button>
        {statusSaved.view}
      </form>
    </>
  );
}

function AlertWords() {
  const [word, setWord] = useState("");
  const { run, view } = useResult();
  return (
    <>
      <ul class="list">
        {model.alertWords.map((w) => (
          <li key={w}>
            {w}{" "}
            <button type="button" class="secondary" onClick={() => void run(() => api("DELETE", "/users/me/alert_words", { alert_words: [w] }), "Removed.")}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={(e) => (e.preventDefault(), void run(() => api("POST", "/users/me/alert_words", { alert_words: [word] }), "Added."), setWord(""))}>
        <Field id="alert-word" label="New alert word">
          <input id="alert-word" value={word} onInput={(e) => setWord(e.currentTarget.value)} />
        </Field>
        <button type="submit">Add</button>
      </form>
      {view}
    </>
  );
}

function Toggles({ items }: { items: [name: string, label: string][] }) {
  return (
    <>
      {items.map(([name, label]) => (
        <Toggle key={name} name={name} label={label} />
      ))}
    </>
  );
}

const Display = () => (
  <Toggles
    items={[
      ["twenty_four_hour_time", "24-hour time"],
      ["enter_sends", "Enter sends the message (otherwise Ctrl+Enter)"],
      ["left_side_userlist", "People list on the left"],
      ["fluid_layout_width", "Use the full width of wide screens"],
    ]}
  />
);

function ChannelAdmin() {
  const streams = [...model.streams.values()].sort((a, b) => a.name.localeCompare(b.name));
  const [id, setId] = useState(streams[0]?.stream_id ?? 0);
  const s = model.streams.get(id);
  if (!s) return <p>No channels.</p>;
  return (
    <>
      <Field id="ch-select" label="Channel">
        <select id="ch-select" value={id} onChange={(e) => setId(Number(e.currentTarget.value))}>
          {streams.map((x) => (
            <option key={x.stream_id} value={x.stream_id}>
              {x.name}
            </option>
          ))}
        </select>
      </Field>
      <ChannelForm key={id} s={s} />
    </>
  );
}

function channelForm(s: Stream): Record<string, string | boolean> {
  return {
    new_name: s.name,
    description: s.description,
    is_private: s.invite_only,
    is_web_public: !!s.is_web_public,
    history_public_to_subscribers: s.history_public_to_subscribers !== false,
    message_retention_days: s.message_retention_days == null ? "realm_default" : String(s.message_retention_days),
    folder_id: s.folder_id == null ? "" : String(s.folder_id),
    topics_policy: String(s.topics_policy ?? "inherit"),
    is_archived: !!s.is_archived,
  };
}

/** Keyed by channel, so its fields start from that channel once and what is typed is never overwritten by a later render or event. */
function ChannelForm({ s }: { s: Stream }) {
  const [form, setForm] = useState(() => channelForm(s));
  const [permissions, setPermissions] = useState<Record<string, number>>({});
  const { run, view } = useResult();
  const save = () => {
    const saved = channelForm(s);
    const p: Params = {};
    for (const [k, v] of Object.entries(form)) if (v !== saved[k]) p[k] = v;
    if (typeof p.message_retention_days === "string" && /^\d+$/.test(p.message_retention_days)) p.message_retention_days = Number(p.message_retention_days);
    if ("folder_id" in p) p.folder_id = form.folder_id === "" ? null : Number(form.folder_id);
    for (const [setting, group] of Object.entries(permissions)) p[setting] = JSON.stringify({ new: group });
    return run(() => api("PATCH", `/streams/${s.stream_id}`, p));
  };
  const text = (k: string, label: string) => (
    <Field id={`ch-${k}`} label={label}>
      <input id={`ch-${k}`} value={String(form[k] ?? "")} onInput={(e) => setForm({ ...form, [k]: e.currentTarget.value })} />
    </Field>
  );
  const check = (k: string, label: string) => (
    <div class="field check">
      <input id={`ch-${k}`} type="checkbox" checked={!!form[k]} onChange={(e) => setForm({ ...form, [k]: e.currentTarget.checked })} />
      <label for={`ch-${k}`}>{label}</label>
    </div>
  );
  return (
    <form onSubmit={(e) => (e.preventDefault(), void save())}>
      {text("new_name", "Name")}
      {text("description", "Description")}
      {check("is_private", "Private")}
      {check("is_web_public", "Web-public")}
      {check("history_public_to_subscribers", "New subscribers can see past messages")}
      {text("message_retention_days", "Message retention (days, unlimited or realm_default)")}
      <Field id="ch-folder_id" label="Folder">
        <select id="ch-folder_id" value={String(form.folder_id ?? "")} onChange={(e) => setForm({ ...form, folder_id: e.currentTarget.value })}>
          <option value="">None</option>
          {[...model.folders.values()].map((f) => (
            <option key={f.id} value={f.id}>
              {f.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="ch-topics_policy" label="Topics policy">
        <select id="ch-topics_policy" value={String(form.topics_policy)} onChange={(e) => setForm({ ...form, topics_policy: e.currentTarget.value })}>
          {["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"].map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </Field>
      {check("is_archived", "Archived")}
      <ChannelPermissions stream={s as unknown as Record<string, unknown>} choices={permissions} onChange={setPermissions} />
      <button type="submit">Save channel</button>
      {view}
    </form>
  );
}

/** The channel's permission settings, each given to one group of the organization's. */
const CHANNEL_PERMISSIONS: [string, string][] = [
  ["can_send_message_group", "Who can post"],
  ["can_subscribe_group", "Who can subscribe"],
  ["can_add_subscribers_group", "Who can add subscribers"],
  ["can_remove_subscribers_group", "Who can remove subscribers"],
  ["can_administer_channel_group", "Who can administer the channel"],
  ["can_delete_any_message_group", "Who can delete any message"],
  ["can_delete_own_message_group", "Who can delete their own messages"],
  ["can_move_messages_out_of_channel_group", "Who can move messages out of the channel"],
  ["can_move_messages_within_channel_group", "Who can move messages within the channel"],
  ["can_resolve_topics_group", "Who can resolve topics"],
];

type GroupChoice = { id: number; name: string; is_system_group: boolean; deactivated?: boolean };

/** A setting held by an anonymous group (members listed directly) shows as "custom" and stays as it is unless changed here. */
function ChannelPermissions({ stream, choices, onChange }: { stream: Record<string, unknown>; choices: Record<string, number>; onChange: (c: Record<string, number>) => void }) {
  const [groups, setGroups] = useState<GroupChoice[]>([]);
  useEffect(() => {
    void api<{ user_groups: GroupChoice[] }>("GET", "/user_groups").then((r) => setGroups(r.user_groups.filter((g) => !g.deactivated)));
  }, []);
  const label = (g: GroupChoice) => (g.is_system_group ? g.name.replace(/^role:/, "role: ") : g.name);
  return (
    <fieldset class="permissions">
      <legend>Permissions</legend>
      {CHANNEL_PERMISSIONS.map(([setting, title]) => {
        const current = stream[setting];
        const value = choices[setting] ?? (typeof current === "number" ? current : "");
        return (
          <Field key={setting} id={`ch-${setting}`} label={title}>
            <select id={`ch-${setting}`} value={String(value)} onChange={(e) => onChange({ ...choices, [setting]: Number(e.currentTarget.value) })}>
              {typeof current !== "number" && <option value="">custom (chosen members and groups)</option>}
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  {label(g)}
                </option>
              ))}
            </select>
          </Field>
        );
      })}
    </fieldset>
  );
}

function UserAdmin() {
  const { run, view } = useResult();
  const users = [...model.users.values()].filter((u) => !u.is_bot).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <>
      {view}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.user_id}>
              <td>
                {u.full_name}
                <br />
                <small>{u.delivery_email ?? u.email}</small>
              </td>
              <td>
                <label class="sr-only" for={`role-${u.user_id}`}>
                  Role of {u.full_name}
                </label>
                <select id={`role-${u.user_id}`} value={u.role} onChange={(e) => void run(() => api("PATCH", `/users/${u.user_id}`, { role: Number(e.currentTarget.value) }))}>
                  {ROLES.map(([v, l]) => (
                    <option key={v} value={v}>
                      {l}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                {u.is_active ? (
                  <button type="button" class="secondary" onClick={() => confirm(`Deactivate ${u.full_name}?`) && void run(() => api("DELETE", `/users/${u.user_id}`), "Deactivated.")}>
                    Deactivate
                  </button>
                ) : (
                  <button type="button" class="secondary" onClick={() => void run(() => api("POST", `/users/${u.user_id}/reactivate`), "Reactivated.")}>
                    Reactivate
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** A list fetched from the server, with a form to add and a button to remove each. */
function SimpleList<T extends { id: number }>(props: {
  load: () => Promise<T[]>;
  describe: (t: T) => string;
  remove?: (t: T) => Promise<unknown>;
  fields: [string, string][];
  add: (values: Record<string, string>) => Promise<unknown>;
  addLabel: string;
  /** An inline text field per item that changes it (a group's members, say). */
  edit?: { label: string; initial: (t: T) => string; apply: (t: T, text: string) => Promise<unknown> };
}) {
  const [items, setItems] = useState<T[]>([]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [edits, setEdits] = useState<Record<number, string>>({});
  const { run, view } = useResult();
  const refresh = () => void props.load().then(setItems);
  useEffect(refresh, []);
  return (
    <>
      <ul class="list">
        {items.map((t) => (
          <li key={t.id}>
            {props.describe(t)}{" "}
            {props.edit && (
              <form class="inline-edit" onSubmit={(e) => (e.preventDefault(), void run(() => props.edit!.apply(t, edits[t.id] ?? props.edit!.initial(t)).then(refresh)))}>
                <label class="sr-only" for={`edit-${t.id}`}>
                  {props.edit.label}: {props.describe(t)}
                </label>
                <input id={`edit-${t.id}`} value={edits[t.id] ?? props.edit.initial(t)} onInput={(e) => setEdits({ ...edits, [t.id]: e.currentTarget.value })} />
                <button type="submit" class="secondary">
                  {props.edit.label}
                </button>
              </form>
            )}
            {props.remove && (
              <button type="button" class="secondary" onClick={() => void run(() => props.remove!(t).then(refresh), "Removed.")}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      <form onSubmit={(e) => (e.preventDefault(), void run(() => props.add(values).then(refresh), "Added."))}>
        {props.fields.map(([k, label]) => (
          <Field key={k} id={`f-${k}`} label={label}>
            <input id={`f-${k}`} value={values[k] ?? ""} onInput={(e) => setValues({ ...values, [k]: e.currentTarget.value })} />
          </Field>
        ))}
        <button type="submit">{props.addLabel}</button>
      </form>
      {view}
    </>
  );
}

function idsOf(text: string): number[] {
  return text
    .split(",")
    .map((w) => (w.trim() ? findUser(w)?.user_id : undefined))
    .filter((x): x is number => x !== undefined);
}

const UserGroups = () => (
  <SimpleList<{ id: number; name: string; members: number[]; is_system_group: boolean }>
    load={() => api<{ user_groups: { id: number; name: string; members: number[]; is_system_group: boolean }[] }>("GET", "/user_groups").then((r) => r.user_groups.filter((g) => !g.is_system_group))}
    describe={(g) => `${g.name}: ${g.members.map(userName).join(", ")}`}
    remove={(g) => api("POST", `/user_groups/${g.id}/deactivate`)}
    fields={[
      ["name", "Group name"],
      ["description", "Description"],
      ["members", "Members (emails, comma-separated)"],
    ]}
    add={(v) => api("POST", "/user_groups/create", { name: v.name, description: v.description ?? "", members: idsOf(v.members ?? "") })}
    addLabel="Create group"
    edit={{
      label: "Set members",
      initial: (g) => g.members.map((id) => model.users.get(id)?.email ?? "").filter(Boolean).join(", "),
      apply: (g, text) => {
        const wanted = new Set(idsOf(text));
        const add = [...wanted].filter((id) => !g.members.includes(id));
        const remove = g.members.filter((id) => !wanted.has(id));
        return api("POST", `/user_groups/${g.id}/members`, { ...(add.length && { add }), ...(remove.length && { delete: remove }) });
      },
    }}
  />
);

const Folders = () => (
  <SimpleList<{ id: number; name: string; description: string }>
    load={() => api<{ channel_folders: { id: number; name: string; description: string }[] }>("GET", "/channel_folders").then((r) => r.channel_folders)}
    describe={(f) => `${f.name}${f.description ? ` — ${f.description}` : ""}`}
    remove={(f) => api("PATCH", `/channel_folders/${f.id}`, { is_archived: true })}
    fields={[
      ["name", "Folder name"],
      ["description", "Description"],
    ]}
    add={(v) => api("POST", "/channel_folders/create", { name: v.name, description: v.description ?? "" })}
    addLabel="Create folder"
  />
);

const Linkifiers = () => (
  <SimpleList<{ id: number; pattern: string; url_template: string }>
    load={() => api<{ linkifiers: { id: number; pattern: string; url_template: string }[] }>("GET", "/realm/linkifiers").then((r) => r.linkifiers)}
    describe={(l) => `${l.pattern} → ${l.url_template}`}
    remove={(l) => api("DELETE", `/realm/filters/${l.id}`)}
    fields={[
      ["pattern", "Pattern"],
      ["url_template", "URL template"],
    ]}
    add={(v) => api("POST", "/realm/filters", v)}
    addLabel="Add linkifier"
  />
);

type Playground = { id: number; name: string; pygments_language: string; url_template: string };
/** Playgrounds have no GET endpoint: they come with /register and its realm_playgrounds events, a moment after a change. */
const playgrounds = () => new Promise<Playground[]>((resolve) => setTimeout(() => resolve((model.realmSettings.realm_playgrounds as Playground[]) ?? []), 300));

const Playgrounds = () => (
  <SimpleList<Playground>
    load={playgrounds}
    describe={(p) => `${p.name} (${p.pygments_language}) → ${p.url_template}`}
    remove={(p) => api("DELETE", `/realm/playgrounds/${p.id}`)}
    fields={[
      ["name", "Name"],
      ["pygments_language", "Language"],
      ["url_template", "URL template"],
    ]}
    add={(v) => api("POST", "/realm/playgrounds", v)}
    addLabel="Add playground"
  />
);

/** The organization's icon and its day and night logos, as register and the realm events give them. */
function OrganizationImages() {
  useModel();
  const r = model.realmSettings;
  // Only uploaded images are this server's; the defaults are Gravatar's and Zulip's.
  const image = (kind: string, alt: string) =>
    r[`realm_${kind}_source`] === "U" && localImage(String(r[`realm_${kind}_url`])) ? <img src={String(r[`realm_${kind}_url`])} alt={alt} /> : <span class="note">Default</span>;
  return (
    <>
      <h3>Organization icon</h3>
      <ImageUpload label="Upload icon" preview={image("icon", "Organization icon")} upload="/realm/icon" remove="/realm/icon" removable={r.realm_icon_source === "U"} />
      <h3>Organization logo</h3>
      <ImageUpload label="Upload logo" preview={image("logo", "Organization logo")} upload="/realm/logo" remove="/realm/logo" removable={r.realm_logo_source === "U"} />
      <h3>Logo for the dark theme</h3>
      <ImageUpload
        label="Upload dark theme logo"
        preview={image("night_logo", "Organization logo for the dark theme")}
        upload="/realm/logo?night=true"
        remove="/realm/logo?night=true"
        removable={r.realm_night_logo_source === "U"}
      />
    </>
  );
}

function WelcomeBot() {
  const [text, setText] = useState(String(model.realmSettings.realm_welcome_message_custom_text ?? ""));
  const { run, view } = useResult();
  return (
    <form onSubmit={(e) => (e.preventDefault(), void run(() => api("PATCH", "/realm", { welcome_message_custom_text: text })))}>
      <Field id="welcome-text" label="Welcome Bot's custom message for new users">
        <textarea id="welcome-text" value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </Field>
      <button type="submit">Save</button>{" "}
      <button type="button" class="secondary" onClick={() => void run(() => api("POST", "/realm/test_welcome_bot_custom_message", { welcome_message_custom_text: text }), "Sent to you as a test.")}>
        Send me a test message
      </button>
      {view}
    </form>
  );
}

const TABS: Tab[] = [
  { id: "profile", label: "Profile", view: Profile },
  { id: "alert-words", label: "Alert words", view: AlertWords },
  { id: "notifications", label: "Notifications", view: Notifications },
  { id: "display", label: "Display", view: Display },
  { id: "bots", label: "Bots", view: Bots },
  { id: "organization-profile", label: "Organization profile", admin: true, view: OrganizationImages },
  { id: "channels", label: "Channels", admin: true, view: ChannelAdmin },
  { id: "users", label: "Users", admin: true, view: UserAdmin },
  { id: "invitations", label: "Invitations", admin: true, view: Invitations },
  { id: "groups", label: "User groups", admin: true, view: UserGroups },
  { id: "folders", label: "Channel folders", admin: true, view: Folders },
  { id: "linkifiers", label: "Linkifiers", admin: true, view: Linkifiers },
  { id: "playgrounds", label: "Code playgrounds", admin: true, view: Playgrounds },
  { id: "default-channels", label: "Default channels", admin: true, view: DefaultChannels },
  { id: "welcome-bot", label: "Welcome Bot", admin: true, view: WelcomeBot },
];

export function Settings({ onClose }: { onClose: () => void }) {
  const tabs = TABS.filter((t) => !t.admin || isAdmin());
  const [tab, setTab] = useState(tabs[0].id);
  const View = tabs.find((t) => t.id === tab)!.view;
  return (
    <div class="modal settings" role="dialog" aria-modal="true" aria-labelledby="settings-title">
      <header>
        <h2 id="settings-title">Settings</h2>
        <button type="button" aria-label="Close settings" onClick={onClose} ref={(el) => el?.focus()}>
          ×
        </button>
      </header>
      <div class="settings-body">
        <ul class="tabs" role="tablist" aria-label="Settings sections">
          {tabs.map((t) => (
            <li key={t.id} role="presentation">
              {t.admin && t === tabs.find((x) => x.admin) && <h3>Organization</h3>}
              <button type="button" role="tab" aria-selected={tab === t.id} id={`tab-${t.id}`} onClick={() => setTab(t.id)}>
                {t.label}
              </button>
            </li>
          ))}
        </ul>
        <section role="tabpanel" aria-labelledby={`tab-${tab}`} class="panel">
          <View key={tab} />
        </section>
      </div>
    </div>
  );
}
