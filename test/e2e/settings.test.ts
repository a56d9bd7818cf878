/**
 * The settings dialog's default channels and invitations in headless Chromium, against a real
 * Confab with Zulip's development organization. Screenshots, at a desktop's and a phone's size,
 * land in test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { joinPath, readOutbox } from "../helpers/mail.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario } = e2e;

const IAGO = { email: "iago@zulip.com" };

async function channelIds(): Promise<Map<string, number>> {
  const r = await call<{ streams: { stream_id: number; name: string }[] }>(IAGO, "GET", "/streams", { include_all: "true" });
  return new Map(r.streams.map((s) => [s.name, s.stream_id]));
}

/** The organization's default channels by name, as /register reports them. */
async function defaultChannels(): Promise<string[]> {
  const r = await call<{ realm_default_streams: number[] }>(IAGO, "POST", "/register", { fetch_event_types: JSON.stringify(["default_streams"]) });
  const names = new Map([...(await channelIds())].map(([name, id]) => [id, name]));
  return r.realm_default_streams.map((id) => names.get(id)!).sort();
}

/** The channel names the Default channels tab shows, in its order. */
const listed = async (page: Page) => (await page.locator(".default-channels tbody td:first-child").allInnerTexts()).map((t) => t.replace(/^#/, ""));

async function waitForListed(page: Page, want: string[]) {
  const deadline = Date.now() + 10_000;
  let seen: string[] = [];
  while (Date.now() < deadline) {
    seen = await listed(page);
    if (JSON.stringify(seen) === JSON.stringify(want)) return;
    await page.waitForTimeout(100);
  }
  assert.deepEqual(seen, want, "default channels listed");
}

async function openTab(page: Page, tab: string) {
  await page.click("button[aria-label=Settings]");
  await page.click(`role=tab[name='${tab}']`);
}

/** A screenshot at a desktop's size and another at a phone's, with `focus` scrolled into view. */
async function screenshots(page: Page, name: string, focus: string) {
  for (const [suffix, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
    await page.setViewportSize({ width, height });
    await page.locator(focus).scrollIntoViewIfNeeded();
    await screenshot(page, `${name}-${suffix}`);
  }
}

describe("the settings dialog in Chromium", () => {
  scenario("Default channels: the seeded defaults are listed; adding and removing show at once, in another administrator's open dialog too", async () => {
    const seeded = await defaultChannels();
    assert.deepEqual(seeded, ["Verona", "Zulip", "sandbox"].sort());
    const byName = (names: string[]) => [...names].sort((a, b) => a.localeCompare(b));
    const iago = await signedIn(e2e.browser, e2e.srv.url, "iago@zulip.com", DEV_PASSWORD);
    const desdemona = await signedIn(e2e.browser, e2e.srv.url, "desdemona@zulip.com", DEV_PASSWORD);
    for (const { page } of [iago, desdemona]) {
      await openTab(page, "Default channels");
      await waitForListed(page, byName(seeded));
    }
    // Private channels cannot be defaults, so the picker does not offer them.
    assert.equal(await iago.page.locator("#default-channel-add option", { hasText: "core team" }).count(), 0);

    await iago.page.selectOption("#default-channel-add", { label: "Denmark" });
    await iago.page.click("text=Add default channel");
    await iago.page.locator("[role=status] >> text=Added.").waitFor();
    const withDenmark = byName([...seeded, "Denmark"]);
    await waitForListed(iago.page, withDenmark);
    // Desdemona's dialog learns of it from the default_streams event alone.
    await waitForListed(desdemona.page, withDenmark);
    assert.deepEqual(await defaultChannels(), [...withDenmark].sort());
    assert.equal(await iago.page.locator("#default-channel-add option", { hasText: "Denmark" }).count(), 0);
    await screenshots(iago.page, "settings-default-channels", ".default-channels");

    await iago.page.click("button[aria-label='Remove Denmark from the default channels']");
    await iago.page.locator("[role=status] >> text=Removed.").waitFor();
    await waitForListed(iago.page, byName(seeded));
    await waitForListed(desdemona.page, byName(seeded));

    // A change from another client shows as well.
    const ids = await channelIds();
    await call(IAGO, "DELETE", "/default_streams", { stream_id: ids.get("sandbox")! });
    await waitForListed(iago.page, byName(seeded.filter((n) => n !== "sandbox")));
    await call(IAGO, "POST", "/default_streams", { stream_id: ids.get("sandbox")! });
    await waitForListed(iago.page, byName(seeded));
    await iago.context.close();
    await desdemona.context.close();
  });

  scenario("invitation: the default channels start ticked, and the invitee joins exactly the channels ticked", async () => {
    const ids = await channelIds();
    const defaults = await defaultChannels();
    const { context, page } = await signedIn(e2e.browser, e2e.srv.url, "iago@zulip.com", DEV_PASSWORD);
    await openTab(page, "Invitations");
    const box = (name: string) => page.locator(`#invite-channel-${ids.get(name)}`);
    const ticked = async () => {
      const names: string[] = [];
      for (const [name, id] of ids) if (await page.locator(`#invite-channel-${id}:checked`).count()) names.push(name);
      return names.sort();
    };
    assert.deepEqual(await ticked(), defaults);
    // Iago is in the private "core team": offered, but not ticked, so it is not shared by default.
    assert.equal(await box("core team").isChecked(), false);

    await page.fill("#invite-emails", "chosen@example.com");
    await box("sandbox").uncheck();
    await box("Denmark").check();
    const chosen = await ticked();
    assert.deepEqual(chosen, ["Denmark", "Verona", "Zulip"]);
    await screenshots(page, "settings-invite-channels", ".invite-channels");
    await page.click("text=Send invitations");
    await page.locator("[role=status] >> text=Invitations sent.").waitFor();
    await page.locator(".pending-invites >> text=chosen@example.com").waitFor();
    await context.close();

    const mail = (await readOutbox(e2e.srv)).find((m) => m.to === "chosen@example.com");
    assert.ok(mail, "the invitation is in the outbox");
    const joining = await e2e.browser.newContext({ baseURL: e2e.srv.url });
    const signup = await joining.newPage();
    await signup.goto(joinPath(mail));
    await signup.fill("#full_name", "Chosen One");
    await signup.fill("#password", "a long enough password");
    await signup.click("button[type=submit]");
    await signup.locator("text=Open Zulip Dev").waitFor();
    await joining.close();

    const subs = await call<{ subscriptions: { name: string }[] }>({ email: "chosen@example.com", password: "a long enough password" }, "GET", "/users/me/subscriptions");
    assert.deepEqual(subs.subscriptions.map((s) => s.name).sort(), chosen);
  });

  scenario("reusable link: created with its lifetime, shown with a copy button, listed, and revoked", async () => {
    const { context, page } = await signedIn(e2e.browser, e2e.srv.url, "iago@zulip.com", DEV_PASSWORD);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    page.on("dialog", (d) => void d.accept());
    await openTab(page, "Invitations");
    await page.check("input[name=invite-kind][value=link]");
    await page.locator("#invite-emails").waitFor({ state: "detached" });
    await page.selectOption("#invite-expiry", { label: "1 day" });
    await page.selectOption("#invite-role", { label: "Moderator" });
    const createdAt = Date.now() / 1000;
    await page.click("button:text('Create link')");
    await page.locator("[role=status] >> text=Link created.").waitFor();
    const link = await page.inputValue("#invite-link");
    assert.match(link, /^https?:\/\/[^/]+\/join\/[a-z0-9]+\/$/);

    await page.click("button:text('Copy link')");
    await page.locator("[role=status] >> text=Copied.").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);

    const invites = await call<{ invites: { id: number; is_multiuse: boolean; link_url?: string; invited_as: number; expiry_date: number | null }[] }>(IAGO, "GET", "/invites");
    const made = invites.invites.find((i) => i.is_multiuse && i.link_url === link);
    assert.ok(made, "the link is among the invitations");
    assert.equal(made.invited_as, 300);
    assert.ok(Math.abs(made.expiry_date! - (createdAt + 86400)) < 120, `expires a day later: ${made.expiry_date}`);
    const row = page.locator(".pending-invites li", { hasText: link });
    await row.waitFor();
    await screenshots(page, "settings-invite-link", "#invite-link");

    await row.locator("button:text('Revoke')").click();
    await page.locator("[role=status] >> text=Revoked.").waitFor();
    await row.waitFor({ state: "detached" });
    const after = await call<{ invites: { id: number; is_multiuse: boolean }[] }>(IAGO, "GET", "/invites");
    assert.ok(!after.invites.some((i) => i.is_multiuse && i.id === made.id), "the link is revoked");
    await context.close();
  });
});
