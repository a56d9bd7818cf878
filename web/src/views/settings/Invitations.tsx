/**
 * Inviting people, by email or with a reusable link, as Zulip's invite dialog does: the inviter
 * picks the role, when the invitation expires and which channels the new member joins (the
 * organization's default channels to begin with), then manages what is pending.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api";
import { model, useModel, userName, type Stream } from "../../model";
import { byName, Field, ROLES, roleName, useResult } from "./form";
import { fullTime } from "../../time";

interface Invite {
  id: number;
  email?: string;
  link_url?: string;
  invited_as: number;
  invited_by_user_id: number;
  is_multiuse: boolean;
  expiry_date: number | null;
}

/** Zulip's choices of lifetime, in minutes; null never expires. */
const EXPIRY: [number | null, string][] = [
  [24 * 60, "1 day"],
  [3 * 24 * 60, "3 days"],
  [10 * 24 * 60, "10 days"],
  [30 * 24 * 60, "30 days"],
  [null, "Never expires"],
];
const DEFAULT_EXPIRY = 10 * 24 * 60;

/** Channels the inviter can bring someone into: the public ones and the private ones they are in. */
function invitableChannels(): Stream[] {
  return [...model.streams.values()].filter((s) => !s.is_archived && (!s.invite_only || model.subs.has(s.stream_id))).sort(byName);
}

export function Invitations() {
  useModel();
  const [invites, setInvites] = useState<Invite[]>([]);
  const refresh = () => void api<{ invites: Invite[] }>("GET", "/invites").then((r) => setInvites(r.invites));
  // Another administrator's invitation or revocation arrives as `invites_changed`.
  useEffect(refresh, [model.invitesChanged]);
  return (
    <>
      <InviteForm onCreated={refresh} />
      <h3>Pending invitations</h3>
      <PendingInvites invites={invites} onRevoked={refresh} />
    </>
  );
}

function InviteForm({ onCreated }: { onCreated: () => void }) {
  const [kind, setKind] = useState<"email" | "link">("email");
  const [emails, setEmails] = useState("");
  const [role, setRole] = useState(400);
  const [expiry, setExpiry] = useState<number | null>(DEFAULT_EXPIRY);
  const channels = invitableChannels();
  const [chosen, setChosen] = useState(() => new Set(channels.map((s) => s.stream_id).filter((id) => model.defaultChannelIds.has(id))));
  const [link, setLink] = useState("");
  const { run, view } = useResult();
  const submit = () => {
    // The ticked channels exactly, not include_realm_default_subscriptions: unticking a default
    // channel keeps the new member out of it.
    const options = { invite_as: role, invite_expires_in_minutes: expiry, stream_ids: channels.map((s) => s.stream_id).filter((id) => chosen.has(id)) };
    if (kind === "email") {
      return run(async () => {
        await api("POST", "/invites", { ...options, invitee_emails: emails });
        setEmails("");
        onCreated();
      }, "Invitations sent.");
    }
    return run(async () => {
      setLink((await api<{ invite_link: string }>("POST", "/invites/multiuse", options)).invite_link);
      onCreated();
    }, "Link created.");
  };
  return (
    <form class="invite-form" onSubmit={(e) => (e.preventDefault(), void submit())}>
      <fieldset class="invite-kind">
        <legend>Invite</legend>
        {(
          [
            ["email", "By email"],
            ["link", "With a reusable link"],
          ] as const
        ).map(([k, label]) => (
          <label key={k}>
            <input type="radio" name="invite-kind" value={k} checked={kind === k} onChange={() => setKind(k)} /> {label}
          </label>
        ))}
      </fieldset>
      {kind === "email" && (
        <Field id="invite-emails" label="Email addresses (comma-separated)">
          <textarea id="invite-emails" value={emails} onInput={(e) => setEmails(e.currentTarget.value)} />
        </Field>
      )}
      <Field id="invite-role" label="Invite as">
        <select id="invite-role" value={role} onChange={(e) => setRole(Number(e.currentTarget.value))}>
          {/* Only owners may invite owners. */}
          {ROLES.filter(([v]) => v !== 100 || model.me.role === 100).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <Field id="invite-expiry" label="Invitation expires after">
        <select id="invite-expiry" value={String(expiry)} onChange={(e) => setExpiry(e.currentTarget.value === "null" ? null : Number(e.currentTarget.value))}>
          {EXPIRY.map(([v, l]) => (
            <option key={l} value={String(v)}>
              {l}
            </option>
          ))}
        </select>
      </Field>
      <ChannelChoices channels={channels} chosen={chosen} onChange={setChosen} />
      <button type="submit">{kind === "email" ? "Send invitations" : "Create link"}</button>
      {view}
      {kind === "link" && link && <InviteLink url={link} />}
    </form>
  );
}

function ChannelChoices({ channels, chosen, onChange }: { channels: Stream[]; chosen: Set<number>; onChange: (ids: Set<number>) => void }) {
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    onChange(next);
  };
  return (
    <fieldset class="invite-channels">
      <legend>Channels they join</legend>
      {channels.map((s) => (
        <div key={s.stream_id} class="field check">
          <input id={`invite-channel-${s.stream_id}`} type="checkbox" checked={chosen.has(s.stream_id)} onChange={(e) => toggle(s.stream_id, e.currentTarget.checked)} />
          <label for={`invite-channel-${s.stream_id}`}>
            {s.invite_only ? s.name : `#${s.name}`}
            {s.invite_only && <small>private</small>}
            {model.defaultChannelIds.has(s.stream_id) && <small>default</small>}
          </label>
        </div>
      ))}
    </fieldset>
  );
}

function InviteLink({ url }: { url: string }) {
  return (
    <div class="field">
      <label for="invite-link">Invitation link</label>
      <div class="copyable">
        <input id="invite-link" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={url} label="Copy link" />
      </div>
    </div>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [outcome, setOutcome] = useState("");
  const copy = async () => {
    try {
      // navigator.clipboard is missing outside secure contexts (plain http to another host).
      await navigator.clipboard.writeText(text);
      setOutcome("Copied.");
    } catch {
      setOutcome("The browser would not copy it: select the link and copy it by hand.");
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={() => void copy()}>
        {label}
      </button>
      {outcome && <span role="status">{outcome}</span>}
    </>
  );
}

const expires = (at: number | null) => (at === null ? "never expires" : `expires ${fullTime(at * 1000, model.settings.twenty_four_hour_time)}`);

function PendingInvites({ invites, onRevoked }: { invites: Invite[]; onRevoked: () => void }) {
  const { run, view } = useResult();
  const revoke = (i: Invite) => {
    if (!confirm(i.is_multiuse ? "Revoke this invitation link?" : `Revoke the invitation to ${i.email}?`)) return;
    void run(async () => {
      await api("DELETE", i.is_multiuse ? `/invites/multiuse/${i.id}` : `/invites/${i.id}`);
      onRevoked();
    }, "Revoked.");
  };
  return (
    <>
      {view}
      {!invites.length && <p>None.</p>}
      <ul class="list pending-invites">
        {invites.map((i) => (
          <li key={`${i.is_multiuse}-${i.id}`}>
            <strong>{i.is_multiuse ? "Reusable link" : i.email}</strong> — {roleName(i.invited_as)}, invited by {userName(i.invited_by_user_id)}, {expires(i.expiry_date)}
            <div class="copyable">
              {i.link_url && (
                <>
                  <code>{i.link_url}</code>
                  <CopyButton text={i.link_url} label="Copy" />
                </>
              )}
              <button type="button" class="secondary" onClick={() => revoke(i)}>
                Revoke
              </button>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}
