import path from "node:path";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** postgres://... to use PostgreSQL; unset for the embedded SQLite database. */
  databaseUrl?: string;
  /** Development mode: dev-only endpoints, the development organization. */
  development: boolean;
  /** The URL users reach the server at (realm_url). */
  externalUrl: string;
  /** Domain of the placeholder addresses shown when real emails are hidden. */
  fakeEmailDomain: string;
  /** Zulip's WEB_PUBLIC_STREAMS_ENABLED server setting. */
  webPublicStreamsEnabled: boolean;
  logLevel: string;
  /** Camo proxy for images and videos from other sites (Zulip's CAMO_URI and CAMO_KEY). */
  camoUrl?: string;
  camoKey?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const development = overrides.development ?? env.CONFAB_DEV === "1";
  const port = overrides.port ?? Number(env.PORT ?? 9991);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir: path.resolve(env.CONFAB_DATA_DIR ?? "var"),
    databaseUrl: env.DATABASE_URL || undefined,
    development,
    externalUrl: env.CONFAB_EXTERNAL_URL ?? `http://localhost:${port}`,
    fakeEmailDomain: env.CONFAB_FAKE_EMAIL_DOMAIN ?? (development ? "zulipdev.com" : "confab.invalid"),
    webPublicStreamsEnabled: (env.CONFAB_WEB_PUBLIC_STREAMS_ENABLED ?? "1") === "1",
    logLevel: env.LOG_LEVEL ?? "info",
    camoUrl: env.CONFAB_CAMO_URL || undefined,
    camoKey: env.CONFAB_CAMO_KEY || undefined,
    ...overrides,
  };
}
