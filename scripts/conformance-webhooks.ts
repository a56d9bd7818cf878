/**
 * Runs Zulip's webhook cases (the shared conformance folder, see its SOURCE.md) through
 * /api/v1/external/<name> on a real server, for every integration in the registry, and prints
 * per integration how many cases posted exactly what Zulip posts.
 *
 *   npm run conformance:webhooks [-- <integration> ...] [-- --verbose]
 *
 * Ends with the totals and the integrations that have cases but are not in the registry;
 * exits 0 whatever the counts.
 */
import fs from "node:fs";
import { startTestServer } from "../test/helpers/server.js";
import { createTestRealm } from "../test/helpers/realm.js";
import { WEBHOOK_CASES_DIR, webhookCases } from "../test/helpers/webhook_cases.js";
import { createWebhookBot, createZulipTestUsers, prepareChannel, runCase } from "../test/helpers/webhook_conformance.js";
import { allIntegrations } from "../src/integrations/registry.js";

const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const only = args.filter((a) => !a.startsWith("--"));

if (!fs.existsSync(WEBHOOK_CASES_DIR)) {
  console.error(`Zulip's webhook cases are not on this machine (${WEBHOOK_CASES_DIR})`);
  process.exit(2);
}

const srv = await startTestServer();
try {
  const t = await createTestRealm(srv.app);
  const bot = await createWebhookBot(srv.app, t.realm.id, t.owner.id);
  await createZulipTestUsers(srv.app, t.realm.id);
  const setup = { url: srv.url, app: srv.app, bot, reader: t.owner };
  let passed = 0;
  let failed = 0;
  const registered = new Set<string>();
  for (const integration of allIntegrations()) {
    registered.add(integration.name);
    if (only.length && !only.includes(integration.name)) continue;
    const cases = webhookCases(integration.name);
    if (!cases) {
      console.log(`${integration.name.padEnd(16)} no cases`);
      continue;
    }
    const channel = await prepareChannel(setup, integration.name);
    let ok = 0;
    const failures: string[] = [];
    for (const c of cases) {
      const result = await runCase(setup, integration.name, channel, c);
      if (result.ok) ok++;
      else failures.push(`  FAIL ${c.test} (${c.fixture ?? "form"}): ${result.detail}`);
    }
    passed += ok;
    failed += failures.length;
    console.log(`${integration.name.padEnd(16)} ${String(ok).padStart(3)} passed, ${String(failures.length).padStart(3)} failed`);
    if (verbose) for (const f of failures) console.log(f);
  }
  const missing = fs
    .readdirSync(WEBHOOK_CASES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !registered.has(d.name))
    .map((d) => d.name)
    .sort();
  console.log(`total: ${passed} passed, ${failed} failed`);
  if (missing.length && !only.length) console.log(`not in the registry (${missing.length}): ${missing.join(", ")}`);
} finally {
  await srv.close();
}
