/**
 * Every integration in the registry against Zulip's own test cases for it (read from the shared
 * conformance folder, never copied here): each case POSTed through real HTTP, and the posted
 * message's topic and content compared exactly, or nothing posted for a noop case.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestRealm } from "../helpers/realm.js";
import { WEBHOOK_CASES_DIR, webhookCases } from "../helpers/webhook_cases.js";
import { createWebhookBot, createZulipTestUsers, prepareChannel, runCase, type ConformanceSetup } from "../helpers/webhook_conformance.js";
import { allIntegrations } from "../../src/integrations/registry.js";

if (!fs.existsSync(WEBHOOK_CASES_DIR)) {
  test("webhook conformance", { skip: `Zulip's webhook cases are not on this machine (${WEBHOOK_CASES_DIR})` }, () => {});
} else {
  let srv: TestServer;
  let setup: ConformanceSetup;
  before(async () => {
    srv = await startTestServer();
    const t = await createTestRealm(srv.app);
    const bot = await createWebhookBot(srv.app, t.realm.id, t.owner.id);
    await createZulipTestUsers(srv.app, t.realm.id);
    setup = { url: srv.url, app: srv.app, bot, reader: t.owner };
  });
  after(() => srv.close());

  for (const integration of allIntegrations()) {
    const cases = webhookCases(integration.name);
    describe(`${integration.name} (${cases?.length ?? 0} cases)`, () => {
      if (!cases) {
        test("cases", { skip: `no cases for ${integration.name} in ${WEBHOOK_CASES_DIR}` }, () => {});
        return;
      }
      let channel: string;
      before(async () => {
        channel = await prepareChannel(setup, integration.name);
      });
      for (const c of cases) {
        test(`${c.test} (${c.fixture ?? "form"})`, async () => {
          const result = await runCase(setup, integration.name, channel, c);
          assert.ok(result.ok, result.detail);
        });
      }
    });
  }
}
