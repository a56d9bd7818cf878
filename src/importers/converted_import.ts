/**
 * `confab import slack|mattermost FILE [--realm STRING_ID]`: the product's export is converted
 * into Zulip's format in a private temporary directory, which the Zulip importer then loads as a
 * new organization (in one transaction); the directory is removed either way.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppContext } from "../context.js";
import { importZulipExport, type ZulipImportSummary } from "./zulip/import.js";
import { convertSlackExport, slackFileFetcher, SlackImportError, type ConversionSummary } from "./slack/export_zip.js";
import { convertMattermostExport, mattermostTeams, MattermostImportError, type MattermostConversionSummary } from "./mattermost/export.js";

export { SlackImportError, MattermostImportError };

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** A string id from a file name: lower-case letters, digits and dashes, 3 to 40 characters. */
export function stringIdFromName(name: string, fallback: string): string {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return id.length >= 3 ? id : fallback;
}

/** Converts into a temporary directory, imports it, removes it. */
export async function convertAndImport<S>(
  app: AppContext,
  convert: (dir: string) => Promise<S>,
  stringId: string | undefined,
  progress?: (done: number, total: number) => void,
): Promise<{ conversion: S; imported: ZulipImportSummary }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-convert-"));
  try {
    const conversion = await convert(path.join(dir, "export"));
    const imported = await importZulipExport(app, path.join(dir, "export"), { stringId, progress });
    return { conversion, imported };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function progressLines(io: CliOutput): (done: number, total: number) => void {
  let last = -1;
  return (done, total) => {
    const tenth = total ? Math.floor((done / total) * 10) : 10;
    if (tenth === last) return;
    last = tenth;
    io.err(`messages ${done}/${total} (${tenth * 10}%)`);
  };
}

function reportImport(io: CliOutput, imported: ZulipImportSummary): void {
  const messages = imported.counts.messages ?? 0;
  io.out(`Imported organization '${imported.name}' (string id '${imported.stringId}', id ${imported.realmId}) in ${imported.seconds.toFixed(1)} s, ${messages} messages.`);
  for (const [name, n] of Object.entries(imported.counts).sort()) io.out(`  ${name.padEnd(24)} ${n}`);
  io.out(
    "Imported users have no password yet (Confab has no password reset); an administrator prints " +
      `each one's API key with: confab print-api-key --realm '${imported.stringId}' --email EMAIL`,
  );
}

export async function runImportSlack(app: AppContext, file: string, opts: { realm?: string }, io: CliOutput): Promise<void> {
  const stringId = opts.realm ?? stringIdFromName(path.basename(file).replace(/\.zip$/i, ""), "slack");
  const { conversion, imported } = await convertAndImport<ConversionSummary>(
    app,
    (dir) =>
      convertSlackExport(file, dir, {
        domain: new URL(app.config.externalUrl).hostname,
        subdomain: stringId,
        fetchFile: slackFileFetcher(app.config),
        log: (line) => io.err(line),
      }),
    stringId,
    progressLines(io),
  );
  if (conversion.filesNotFetched > 0) io.err(`${conversion.filesNotFetched} files could not be downloaded from Slack; their messages link to Slack instead.`);
  reportImport(io, imported);
}

/** Each team of the export becomes an organization named after it (or `--realm`, for one team). */
export async function runImportMattermost(app: AppContext, file: string, opts: { realm?: string }, io: CliOutput): Promise<void> {
  const teams = await mattermostTeams(file);
  if (teams.length === 0) throw new MattermostImportError("The export has no team.");
  if (opts.realm !== undefined && teams.length > 1) throw new MattermostImportError(`The export has ${teams.length} teams (${teams.join(", ")}); each becomes an organization named after it, so --realm cannot name them all.`);
  for (const team of teams) {
    const { imported } = await convertAndImport<MattermostConversionSummary>(
      app,
      (dir) => convertMattermostExport(file, dir, { domain: new URL(app.config.externalUrl).hostname, team, subdomain: opts.realm, log: (line) => io.err(line) }),
      opts.realm ?? stringIdFromName(team, team),
      progressLines(io),
    );
    reportImport(io, imported);
  }
}
