/**
 * Converts the zip a Slack administrator downloads into Zulip's export format, reading the zip
 * entry by entry: the workspace's lists first, then one day of messages at a time across all
 * conversations, oldest first, written out in files of 1000. Files hosted by Slack are fetched
 * (through the outbound address checks) and stored beside the messages.
 */
import fs from "node:fs";
import type { Config } from "../../config.js";
import { AddressPolicy } from "../../outbound/address_policy.js";
import { safeFetch } from "../../outbound/safe_fetch.js";
import { ZipArchive, ZipError, type ZipLimits } from "../zip.js";
import { ConvertedExportWriter } from "../zulip_format.js";
import type { SlackUser } from "./convert.js";
import { SlackImportError, SlackWorkspace, type SlackChannel, type SlackLocation, type StoreFile } from "./workspace.js";

export { SlackImportError };

/** Downloads a Slack-hosted file; undefined when it cannot be had. */
export type FetchSlackFile = (url: string) => Promise<Buffer | undefined>;

export interface SlackConvertOptions {
  /** The host of the organization, for placeholder addresses and the realm's domain. */
  domain: string;
  /** The organization's string id, written as its subdomain and name. */
  subdomain?: string;
  /**
   * Slack's users.list answer, which has the email addresses an export may lack; the export's own
   * users.json is used when absent.
   */
  users?: SlackUser[];
  fetchFile?: FetchSlackFile;
  zipLimits?: ZipLimits;
  log?: (line: string) => void;
  now?: number;
}

export interface ConversionSummary {
  users: number;
  channels: number;
  messages: number;
  userMessages: number;
  reactions: number;
  uploads: number;
  filesNotFetched: number;
}

/** Every name in a Slack export: top-level lists and one folder level of daily message files. */
const SLACK_ENTRY = /^[^/]+(\.json|\/([^/]+\.json)?)$/;

async function optionalList(zip: ZipArchive, name: string): Promise<SlackChannel[]> {
  if (!zip.has(name)) return [];
  const value = await zip.readJson(name);
  if (!Array.isArray(value)) throw new SlackImportError(`${name} in the Slack export is not a list.`);
  return value as SlackChannel[];
}

/** Fetches Slack's files with the server's outbound rules: public addresses only, bounded size. */
export function slackFileFetcher(config: Config): FetchSlackFile {
  const policy = new AddressPolicy(config.outboundAllowedNetworks);
  return async (url) => {
    try {
      const res = await safeFetch(policy, { url, timeoutMs: 60_000, maxBytes: config.maxFileUploadSizeMib * 1024 * 1024, maxRedirects: 3 });
      return res.status === 200 ? res.body : undefined;
    } catch {
      return undefined;
    }
  };
}

export async function convertSlackExport(zipPath: string, outDir: string, options: SlackConvertOptions): Promise<ConversionSummary> {
  const log = options.log ?? (() => {});
  let zip: ZipArchive;
  try {
    zip = await ZipArchive.open(zipPath, options.zipLimits);
  } catch (e) {
    if (e instanceof ZipError) throw new SlackImportError(e.message);
    throw e;
  }
  try {
    const names = zip.entries().map((e) => e.name);
    if (names.some((n) => !SLACK_ENTRY.test(n))) throw new SlackImportError("Uploaded zip file is not a valid Slack export.");
    if (!zip.has("channels.json")) throw new SlackImportError("Import does not have the layout we expect from a Slack export!");

    const workspace = new SlackWorkspace(options.domain, options.now ?? Date.now() / 1000, options.subdomain);
    const zipUsers = zip.has("users.json") ? ((await zip.readJson("users.json")) as SlackUser[]) : [];
    const users = options.users ?? zipUsers;
    if (!Array.isArray(users) || users.length === 0) throw new SlackImportError("The Slack export has no users.json.");
    workspace.addUsers(users, Array.isArray(zipUsers) ? zipUsers : []);
    workspace.addChannels(await optionalList(zip, "channels.json"), false);
    workspace.addChannels(await optionalList(zip, "groups.json"), true);
    workspace.addMpims(await optionalList(zip, "mpims.json"));
    workspace.addDms(await optionalList(zip, "dms.json"));
    log(`Slack: ${workspace.userIds.size} users, ${workspace.channels.size} channels, ${workspace.mpims.size} group DMs, ${workspace.dms.size} DMs`);

    const writer = new ConvertedExportWriter(outDir);
    const fetchFile = options.fetchFile ?? (async () => undefined);
    const storeFile: StoreFile = async ({ url, pathId }) => {
      const data = await fetchFile(url);
      if (!data) return false;
      await fs.promises.writeFile(writer.filePath(`uploads/${pathId}`), data);
      return true;
    };

    // Each conversation's folder holds one file per day; the days are read in order, each day's
    // messages from every folder merged by time.
    const folders = new Map<string, SlackLocation>();
    for (const name of workspace.channels.keys()) folders.set(name, { channel: name });
    for (const name of workspace.mpims.keys()) folders.set(name, { mpim: name });
    for (const id of workspace.dms.keys()) folders.set(id, { dm: id });
    const days = new Map<string, string[]>();
    for (const name of names) {
      const slash = name.indexOf("/");
      if (slash < 0 || !name.endsWith(".json") || !folders.has(name.slice(0, slash))) continue;
      const day = name.slice(slash + 1);
      days.set(day, [...(days.get(day) ?? []), name.slice(0, slash)]);
    }
    for (const day of [...days.keys()].sort()) {
      const batch: { message: Record<string, unknown>; location: SlackLocation }[] = [];
      for (const folder of days.get(day)!) {
        const messages = await zip.readJson(`${folder}/${day}`);
        if (!Array.isArray(messages)) throw new SlackImportError(`${folder}/${day} in the Slack export is not a list of messages.`);
        for (const message of messages) if (message && typeof message === "object") batch.push({ message, location: folders.get(folder)! });
      }
      batch.sort((a, b) => Number.parseFloat(String(a.message.ts)) - Number.parseFloat(String(b.message.ts)));
      for (const { message, location } of batch) {
        const converted = await workspace.convertMessage(message, location, storeFile);
        if (converted) await writer.addMessage(converted.message, converted.userMessages);
      }
    }

    await writer.finish({ realm: workspace.realmJson(), attachments: workspace.attachments, uploads: workspace.uploads });
    const summary: ConversionSummary = {
      users: (workspace.realm.zerver_userprofile as unknown[]).length,
      channels: workspace.channels.size,
      messages: writer.messageCount,
      userMessages: writer.userMessageCount,
      reactions: workspace.reactions.length,
      uploads: workspace.uploads.length,
      filesNotFetched: workspace.skippedFiles,
    };
    log(`Slack: converted ${summary.messages} messages, ${summary.uploads} files (${summary.filesNotFetched} could not be fetched)`);
    return summary;
  } catch (e) {
    if (e instanceof ZipError) throw new SlackImportError(e.message);
    throw e;
  } finally {
    zip.close();
  }
}
