/**
 * The Bots settings tab: the bots the reader administers (every bot for administrators), kept
 * current by `realm_bot` events; creating one, renaming, deactivating and reactivating it, its
 * API key and zuliprc, and the URL an integration posts to as an incoming webhook bot.
 */
import { useState } from "preact/hooks";
import { api } from "../../api";
import { model, useModel, userName } from "../../model";
import { holdsGroupSetting, isGuest } from "../../permissions";
import { BOT_TYPES, botTypeName, integrationUrl, zuliprc, type Bot } from "../../state/bots";
import { Field, useResult } from "./form";
import { CopyButton } from "./Invitations";
import "./bots.css";

/** The integrations the server's incoming webhooks speak (/api/v1/external/<name>), from register. */
const integrations = () => (model.realmSettings.realm_incoming_webhook_bots ?? []) as { name: string; display_name: string }[];

const site = () => window.location.origin;

/** Zulip's realm settings: any bot, or only bots that send messages in (incoming webhooks). */
function creatableTypes(): [number, string][] {
  if (isGuest()) return [];
  if (holdsGroupSetting(model.realmSettings.realm_can_create_bots_group)) return BOT_TYPES;
  return holdsGroupSetting(model.realmSettings.realm_can_create_write_only_bots_group) ? BOT_TYPES.filter(([t]) => t === 2) : [];
}

function CreateBot() {
  const types = creatableTypes();
  const [type, setType] = useState(types[0]?.[0] ?? 2);
  const [name, setName] = useState("");
  const [short, setShort] = useState("");
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState(1);
  const { run, view } = useResult();
  if (!types.length) return <p>You may not create bots in this organization.</p>;
  const create = () =>
    run(async () => {
      await api("POST", "/bots", {
        full_name: name,
        short_name: short,
        bot_type: type,
        ...(type === 3 ? { payload_url: JSON.stringify(url), interface_type: format } : {}),
      });
      setName("");
      setShort("");
      setUrl("");
    }, "Bot created.");
  return (
    <form class="bot-create" onSubmit={(e) => (e.preventDefault(), void create())}>
      <h3>Add a bot</h3>
      <Field id="bot-type" label="Bot type">
        <select id="bot-type" value={type} onChange={(e) => setType(Number(e.currentTarget.value))}>
          {types.map(([t, label]) => (
            <option key={t} value={t}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field id="bot-name" label="Name">
        <input id="bot-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field id="bot-short-name" label="Bot email (before -bot@)">
        <input id="bot-short-name" required value={short} onInput={(e) => setShort(e.currentTarget.value)} />
      </Field>
      {type === 3 && (
        <>
          <Field id="bot-payload-url" label="Endpoint URL">
            <input id="bot-payload-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
          </Field>
          <Field id="bot-interface" label="Outgoing webhook message format">
            <select id="bot-interface" value={format} onChange={(e) => setFormat(Number(e.currentTarget.value))}>
              <option value={1}>Zulip</option>
              <option value={2}>Slack compatible</option>
            </select>
          </Field>
        </>
      )}
      <button type="submit">Create bot</button>
      {view}
    </form>
  );
}

function download(bot: Bot) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([zuliprc(bot, site())], { type: "text/plain" }));
  link.download = "zuliprc";
  link.click();
  URL.revokeObjectURL(link.href);
}

function BotRow({ bot }: { bot: Bot }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(bot.full_name);
  const [showKey, setShowKey] = useState(false);
  const { run, view } = useResult();
  const id = bot.user_id;
  return (
    <li class={`bot${bot.is_active ? "" : " inactive"}`}>
      <span class="bot-avatar" aria-hidden="true">
        {[...bot.full_name.trim()][0]?.toUpperCase() ?? "?"}
      </span>
      <div class="bot-details">
        <strong>{bot.full_name}</strong> <small class="bot-type">{botTypeName(bot.bot_type)}</small>
        {!bot.is_active && <small class="bot-type">Deactivated</small>}
        <div class="bot-email">{bot.email}</div>
        {bot.owner_id !== undefined && <div class="bot-owner">Owner: {userName(bot.owner_id)}</div>}
        {bot.services[0]?.base_url && <div class="bot-owner">Posts to {bot.services[0].base_url}</div>}
        {showKey && bot.is_active && (
          <div class="copyable">
            <code class="bot-key">{bot.api_key}</code>
            <CopyButton text={bot.api_key} label="Copy key" />
          </div>
        )}
        {renaming && (
          <form class="bot-rename" onSubmit={(e) => (e.preventDefault(), void run(() => api("PATCH", `/bots/${id}`, { full_name: name }).then(() => setRenaming(false))))}>
            <Field id={`bot-rename-${id}`} label="New name">
              <input id={`bot-rename-${id}`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <button type="submit">Save</button>
            <button type="button" class="secondary" onClick={() => setRenaming(false)}>
              Cancel
            </button>
          </form>
        )}
        <div class="bot-actions">
          {bot.is_active ? (
            <>
              <button type="button" class="secondary" onClick={() => (setName(bot.full_name), setRenaming(true))}>
                Edit name
              </button>
              <button type="button" class="secondary" aria-pressed={showKey} onClick={() => setShowKey(!showKey)}>
                {showKey ? "Hide API key" : "Show API key"}
              </button>
              <button type="button" class="secondary" onClick={() => download(bot)}>
                Download zuliprc
              </button>
              <button type="button" class="secondary" onClick={() => void run(() => api("POST", `/bots/${id}/api_key/regenerate`), "New API key made.")}>
                Regenerate API key
              </button>
              <button type="button" class="secondary" onClick={() => void run(() => api("DELETE", `/bots/${id}`), "Deactivated.")}>
                Deactivate
              </button>
            </>
          ) : (
            <button type="button" class="secondary" onClick={() => void run(() => api("POST", `/users/${id}/reactivate`), "Reactivated.")}>
              Reactivate
            </button>
          )}
        </div>
        {view}
      </div>
    </li>
  );
}

function IntegrationUrl({ bots }: { bots: Bot[] }) {
  const [botId, setBotId] = useState(bots.find((b) => b.bot_type === 2)?.user_id ?? bots[0].user_id);
  const [integration, setIntegration] = useState("");
  const [channel, setChannel] = useState("");
  const [topic, setTopic] = useState("");
  const bot = bots.find((b) => b.user_id === botId) ?? bots[0];
  const channels = [...model.streams.values()].filter((s) => !s.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  const url = integration.trim() ? integrationUrl(site(), integration, bot.api_key, channel, topic) : "";
  return (
    <form class="integration-url" onSubmit={(e) => e.preventDefault()}>
      <h3>Integration URL</h3>
      <Field id="hook-bot" label="Bot">
        <select id="hook-bot" value={bot.user_id} onChange={(e) => setBotId(Number(e.currentTarget.value))}>
          {bots.map((b) => (
            <option key={b.user_id} value={b.user_id}>
              {b.full_name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="hook-integration" label="Integration">
        <input id="hook-integration" list="hook-integrations" value={integration} onInput={(e) => setIntegration(e.currentTarget.value)} />
        <datalist id="hook-integrations">
          {integrations().map((i) => (
            <option key={i.name} value={i.name}>
              {i.display_name}
            </option>
          ))}
        </datalist>
      </Field>
      <Field id="hook-channel" label="Channel">
        <select id="hook-channel" value={channel} onChange={(e) => setChannel(e.currentTarget.value)}>
          <option value="">Direct message to the bot's owner</option>
          {channels.map((s) => (
            <option key={s.stream_id} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
      </Field>
      <Field id="hook-topic" label="Topic (optional)">
        <input id="hook-topic" value={topic} onInput={(e) => setTopic(e.currentTarget.value)} />
      </Field>
      {url && (
        <div class="copyable">
          <input id="hook-url" aria-label="Integration URL" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
          <CopyButton text={url} label="Copy URL" />
        </div>
      )}
    </form>
  );
}

export function Bots() {
  useModel();
  const bots = [...model.bots.values()].sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));
  const active = bots.filter((b) => b.is_active);
  return (
    <>
      {bots.length ? (
        <ul class="list bots">
          {bots.map((b) => (
            <BotRow key={b.user_id} bot={b} />
          ))}
        </ul>
      ) : (
        <p>No bots yet.</p>
      )}
      <CreateBot />
      {active.length > 0 && <IntegrationUrl bots={active} />}
    </>
  );
}
