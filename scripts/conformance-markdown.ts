/**
 * Runs Zulip's Markdown test fixture through POST /messages/render on a real server and
 * compares the HTML strictly.
 *
 *   npm run conformance:markdown -- [path/to/markdown_test_cases.json]
 *
 * The server is seeded with what the fixture assumes: the organization's URL is
 * http://zulip.testserver, a user "Zoe" has id 7, camo uses the key "dummy". Cases with
 * `translate_emoticons` are sent by a user who has that setting on. Prints each failure briefly
 * and ends with "N passed, N failed, N skipped"; exits 0 whatever the counts.
 */
import fs from "node:fs";
import path from "node:path";
import { startTestServer } from "../test/helpers/server.js";
import { Api } from "../test/helpers/client.js";
import { runAction } from "../src/actions/run.js";
import { createRealmInTx } from "../src/actions/realms.js";
import { createUserInTx } from "../src/actions/users.js";
import { createStreamInTx } from "../src/actions/streams.js";
import { Role } from "../src/domain/roles.js";
import type { AppContext } from "../src/context.js";

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
  ignore?: boolean;
}

interface Fixture {
  regular_tests: RegularCase[];
  linkify_tests: [string, string, string][];
}

const REALM_URL = "http://zulip.testserver";
const CAMO_URL = "https://external-content.zulipcdn.net/external_content/";

if (!process.argv[2]) {
  console.error("usage: npm run conformance:markdown -- <Zulip's zerver/tests/fixtures/markdown_test_cases.json>");
  process.exit(2);
}
const fixturePath = path.resolve(process.argv[2]);

interface Seeded {
  plain: { email: string; apiKey: string };
  emoticons: { email: string; apiKey: string };
  zoeId: number;
}

/** Zulip's test organization, in the order its users are created (Zoe first, then the others). */
async function seed(app: AppContext): Promise<Seeded> {
  return runAction(app, async (tx) => {
    const realm = await createRealmInTx(tx, app, { stringId: "zulip", name: "Zulip Dev", defaultChannelName: "Verona" });
    const last = await tx.selectFrom("users").select((eb) => eb.fn.max("id").as("id")).executeTakeFirstOrThrow();
    // Fill ids up to 6 so that Zoe, like in Zulip's test database, is user 7.
    for (let next = Number(last.id ?? 0) + 1; next < 7; next++) {
      await createUserInTx(tx, app, realm, { email: `filler${next}@zulip.com`, fullName: `Filler ${next}`, role: Role.MEMBER, isBot: true });
    }
    const make = (email: string, fullName: string, role: number) =>
      createUserInTx(tx, app, realm, { email, fullName, role, password: "not-used-by-the-fixture" });
    const zoe = await make("ZOE@zulip.com", "Zoe", Role.MEMBER);
    const othello = await make("othello@zulip.com", "Othello, the Moor of Venice", Role.MEMBER);
    await make("iago@zulip.com", "Iago", Role.ADMINISTRATOR);
    await make("prospero@zulip.com", "Prospero from The Tempest", Role.MEMBER);
    const cordelia = await make("cordelia@zulip.com", "Cordelia, Lear's daughter", Role.MEMBER);
    await make("hamlet@zulip.com", "King Hamlet", Role.MEMBER);
    await tx
      .updateTable("users")
      .set({ props: JSON.stringify({ ...JSON.parse(cordelia.props), translate_emoticons: true }) })
      .where("id", "=", cordelia.id)
      .execute();
    for (const name of ["Denmark", "Scotland", "Venice", "Rome"]) {
      await createStreamInTx(tx, app, realm, null, { name, description: "" });
    }
    return {
      plain: { email: othello.delivery_email, apiKey: othello.api_key },
      emoticons: { email: cordelia.delivery_email, apiKey: cordelia.api_key },
      zoeId: zoe.id,
    };
  });
}

function linkifyExpected(template: string, url: string): string {
  if (!url || !template.includes("%s")) return template;
  const href = url.startsWith("http") || url.includes("://") ? url : url.includes("@") ? `mailto:${url}` : `http://${url}`;
  return template.replace("%s", `<a href="${href}">${url}</a>`);
}

const ZOE_CASES = /@_?\*\*Zoe\|7\*\*/;

async function main() {
  if (!fs.existsSync(fixturePath)) {
    console.error(`No fixture at ${fixturePath}`);
    process.exit(2);
  }
  const fixture: Fixture = JSON.parse(fs.readFileSync(fixturePath, "utf8"));
  const srv = await startTestServer({ externalUrl: REALM_URL, camoUrl: CAMO_URL, camoKey: "dummy" });
  let passed = 0;
  let failed = 0;
  const skipped: string[] = [];
  try {
    const users = await seed(srv.app);
    const api = new Api(srv.url);
    const render = async (input: string, emoticons: boolean) => {
      const r = await api.as(emoticons ? users.emoticons : users.plain).post("/messages/render", { content: input });
      return r.status === 200 ? String(r.body.rendered) : `HTTP ${r.status}: ${JSON.stringify(r.body)}`;
    };
    const check = (name: string, input: string, expected: string, got: string) => {
      if (got === expected) {
        passed++;
        return;
      }
      failed++;
      console.log(`FAIL ${name}\n  input:    ${JSON.stringify(input)}\n  expected: ${JSON.stringify(expected)}\n  got:      ${JSON.stringify(got)}`);
    };

    for (const t of fixture.regular_tests) {
      if (t.ignore) {
        skipped.push(`${t.name}: marked ignore in the fixture`);
        continue;
      }
      if (ZOE_CASES.test(t.input) && users.zoeId !== 7) {
        skipped.push(`${t.name}: needs a user with id 7 (Zoe got id ${users.zoeId})`);
        continue;
      }
      check(t.name, t.input, t.expected_output, await render(t.input, t.translate_emoticons === true));
    }
    for (const [input, template, url] of fixture.linkify_tests) {
      check(`linkify ${JSON.stringify(input)}`, input, linkifyExpected(template, url), await render(input, false));
    }
  } finally {
    await srv.close();
  }
  for (const s of skipped) console.log(`SKIP ${s}`);
  console.log(`${passed} passed, ${failed} failed, ${skipped.length} skipped`);
}

await main();
