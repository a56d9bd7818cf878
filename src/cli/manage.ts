/**
 * Management commands, like Zulip's manage.py: `npm run manage -- <command>` or, after a
 * build, `npx confab <command>`. They use the server's environment (CONFAB_DATA_DIR,
 * DATABASE_URL) and act on the database directly.
 */
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { AppContext } from "../context.js";
import { loadConfig } from "../config.js";
import { openAppContext } from "../server.js";
import { ZulipError } from "../http/errors.js";
import { createRealm } from "../actions/realms.js";
import { doCreateUser, setCanChangeUserEmails, setCanCreateUsers } from "../actions/users.js";
import { getRealmByStringId, type Realm } from "../store/realms.js";
import { getUserByDeliveryEmail, type UserRow } from "../store/users.js";
import { Role } from "../domain/roles.js";
import { zuliprcText } from "./zuliprc.js";
import { importRealm, ImportError } from "./import_realm.js";
import { runImportZulip } from "./import_zulip.js";
import { runExportZulip } from "./export_zulip.js";
import { ZulipImportError } from "../importers/zulip/archive.js";
import { runImportSlack, runImportMattermost, SlackImportError, MattermostImportError } from "../importers/converted_import.js";

export const USAGE = `Usage: confab <command> [options]

Commands:
  start          [--processes N]  serve (N processes need DATABASE_URL and CONFAB_REDIS_URL)
  create-realm   --string-id ID --name NAME
  create-user    --realm ID --email EMAIL --full-name NAME [--role owner|admin|moderator|member|guest]
                 [--password PASSWORD] [--can-create-users] [--can-change-user-emails]
  print-api-key  --realm ID --email EMAIL
  write-zuliprc  --realm ID --email EMAIL [--output FILE]
  import-realm   --file ARCHIVE   (an export from POST /export/realm, into an empty database)
  import zulip   FILE [--realm ID] [--print-bot-keys]   (Zulip's export tarball or directory, as a new organization)
  import slack   FILE [--realm ID]   (the zip of a Slack workspace export)
  import mattermost FILE [--realm ID]   (a bulk export: directory, .jsonl beside data/, or zip; one organization per team)
  export         --format zulip --realm ID --output FILE [--migration-status FILE]
                 (an organization in Zulip's export format; FILE: the target Zulip's migration_status.json)

Organizations are named by their string id ("" for the one at the bare host).
The environment is the server's: CONFAB_DATA_DIR, DATABASE_URL.`;

const ROLES: Record<string, number> = {
  owner: Role.OWNER,
  admin: Role.ADMINISTRATOR,
  moderator: Role.MODERATOR,
  member: Role.MEMBER,
  guest: Role.GUEST,
};

/** Zulip's Realm.MAX_REALM_NAME_LENGTH and subdomain rules. */
const MAX_REALM_NAME_LENGTH = 40;
const SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

class UsageError extends Error {}

export interface Output {
  out(text: string): void;
  err(text: string): void;
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string") throw new UsageError(`missing --${name}`);
  return v;
}

function checkStringId(stringId: string): void {
  if (stringId === "") return;
  if (stringId.length < 3) throw new UsageError("Subdomain needs to have length 3 or greater.");
  if (stringId.length > 40) throw new UsageError("Subdomain is too long.");
  if (!SUBDOMAIN.test(stringId)) throw new UsageError("Subdomain can only have lowercase letters, numbers, and '-'s.");
}

async function findRealm(app: AppContext, stringId: string): Promise<Realm> {
  const realm = await getRealmByStringId(app.db, stringId);
  if (!realm) throw new UsageError(`Organization '${stringId}' does not exist.`);
  return realm;
}

async function findUser(app: AppContext, values: Record<string, unknown>): Promise<UserRow> {
  const realm = await findRealm(app, required(values, "realm"));
  const email = required(values, "email");
  const user = await getUserByDeliveryEmail(app.db, realm.id, email);
  if (!user) throw new UsageError(`No user with email '${email}' in organization '${realm.string_id}'.`);
  return user;
}

type Command = (app: AppContext, values: Record<string, unknown>, io: Output, positionals: string[]) => Promise<void>;

const COMMANDS: Record<string, { options: Record<string, { type: "string" | "boolean" }>; positionals?: number; run: Command }> = {
  "create-realm": {
    options: { "string-id": { type: "string" }, name: { type: "string" } },
    async run(app, values, io) {
      const stringId = required(values, "string-id");
      const name = required(values, "name").trim();
      checkStringId(stringId);
      if (!name) throw new UsageError("The organization name can't be empty.");
      if ([...name].length > MAX_REALM_NAME_LENGTH) throw new UsageError(`The organization name is too long (limit: ${MAX_REALM_NAME_LENGTH} characters).`);
      if (await getRealmByStringId(app.db, stringId)) throw new UsageError("Subdomain unavailable. Please choose a different one.");
      const realm = await createRealm(app, { stringId, name });
      io.out(`Created organization '${realm.name}' (string id '${realm.string_id}', id ${realm.id}).`);
    },
  },

  "create-user": {
    options: {
      realm: { type: "string" },
      email: { type: "string" },
      "full-name": { type: "string" },
      role: { type: "string" },
      password: { type: "string" },
      "can-create-users": { type: "boolean" },
      "can-change-user-emails": { type: "boolean" },
    },
    async run(app, values, io) {
      const realm = await findRealm(app, required(values, "realm"));
      const roleName = typeof values.role === "string" ? values.role : "member";
      const role = ROLES[roleName];
      if (role === undefined) throw new UsageError(`Invalid role '${roleName}': use one of ${Object.keys(ROLES).join(", ")}.`);
      const user = await doCreateUser(app, realm, {
        email: required(values, "email"),
        fullName: required(values, "full-name"),
        password: typeof values.password === "string" ? values.password : undefined,
        role,
      });
      if (values["can-create-users"]) await setCanCreateUsers(app, user.id, true);
      if (values["can-change-user-emails"]) await setCanChangeUserEmails(app, user.id, true);
      io.out(`Created user ${user.delivery_email} (id ${user.id}) in organization '${realm.string_id}'.`);
    },
  },

  "print-api-key": {
    options: { realm: { type: "string" }, email: { type: "string" } },
    async run(app, values, io) {
      io.out((await findUser(app, values)).api_key);
    },
  },

  "write-zuliprc": {
    options: { realm: { type: "string" }, email: { type: "string" }, output: { type: "string" } },
    async run(app, values, io) {
      const user = await findUser(app, values);
      const text = zuliprcText(user.delivery_email, user.api_key, app.config.externalUrl);
      if (typeof values.output === "string") {
        fs.writeFileSync(values.output, text, { mode: 0o600 });
        io.out(`Wrote ${values.output}`);
      } else {
        io.out(text.trimEnd());
      }
    },
  },

  "import-realm": {
    options: { file: { type: "string" } },
    async run(app, values, io) {
      const { realm, rows } = await importRealm(app, required(values, "file"));
      io.out(`Imported organization '${realm.name}' (string id '${realm.string_id}', id ${realm.id}): ${rows} rows.`);
    },
  },

  import: {
    options: { realm: { type: "string" }, "print-bot-keys": { type: "boolean" } },
    positionals: 2,
    async run(app, values, io, positionals) {
      const [format, file] = positionals;
      if (format === "slack" && file) return runImportSlack(app, file, { realm: values.realm as string | undefined }, io);
      if (format === "mattermost" && file) return runImportMattermost(app, file, { realm: values.realm as string | undefined }, io);
      if (format !== "zulip" || !file) throw new UsageError("usage: import zulip|slack|mattermost FILE [--realm ID] [--print-bot-keys]");
      await runImportZulip(app, file, { realm: values.realm as string | undefined, printBotKeys: values["print-bot-keys"] === true }, io);
    },
  },

  export: {
    options: { format: { type: "string" }, realm: { type: "string" }, output: { type: "string" }, "migration-status": { type: "string" } },
    async run(app, values, io) {
      if (values.format !== "zulip") throw new UsageError("--format zulip is the only export format here (POST /export/realm makes Confab's own)");
      const realm = await findRealm(app, required(values, "realm"));
      await runExportZulip(app, realm, required(values, "output"), io, values["migration-status"] as string | undefined);
    },
  },
};

async function withApp<T>(env: NodeJS.ProcessEnv, fn: (app: AppContext) => Promise<T>): Promise<T> {
  const { app, close } = await openAppContext(loadConfig(env));
  try {
    return await fn(app);
  } finally {
    await close();
  }
}

/** Runs one command; returns the process exit status. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Output = defaultOutput): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.out(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`error: unknown command '${name}'\n\n${USAGE}`);
    return 2;
  }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: command.options, strict: true, allowPositionals: !!command.positionals });
    if (positionals.length > (command.positionals ?? 0)) throw new UsageError(`unexpected argument '${positionals[command.positionals ?? 0]}'`);
    await withApp(env, (app) => command.run(app, values, io, positionals));
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ZulipError || e instanceof ImportError || e instanceof ZulipImportError || e instanceof SlackImportError || e instanceof MattermostImportError) {
      io.err(`error: ${e instanceof ZulipError ? e.msg : e.message}`);
      return 1;
    }
    if (e instanceof TypeError && (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    throw e;
  }
}

const defaultOutput: Output = {
  out: (text) => process.stdout.write(text + "\n"),
  err: (text) => process.stderr.write(text + "\n"),
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
