/**
 * Headless Chromium (Debian's, driven by playwright-core) for end-to-end tests of the web client,
 * and the client's build, made when missing or older than its sources.
 */
import fs from "node:fs";
import path from "node:path";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
export const SCREENSHOTS = path.join(ROOT, "test/e2e/screenshots");

/** Debian's Chromium, installed with apt-get when missing; otherwise the reason it cannot be had. */
export async function findChromium(): Promise<{ path: string } | { reason: string }> {
  const binary = "/usr/bin/chromium";
  if (fs.existsSync(binary)) return { path: binary };
  try {
    await execFileAsync("sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"], { timeout: 15 * 60 * 1000 });
  } catch (err) {
    const detail = (err as { stderr?: string; message: string }).stderr || (err as Error).message;
    return { reason: `Chromium is not installed and apt-get could not install it: ${detail.trim().slice(-300)}` };
  }
  return fs.existsSync(binary) ? { path: binary } : { reason: "apt-get ran but /usr/bin/chromium is still missing" };
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the client unless dist/web is newer than everything under web/. */
export function ensureClientBuilt(): void {
  const index = path.join(ROOT, "dist/web/index.html");
  const builtAt = fs.existsSync(index) ? fs.statSync(index).mtimeMs : 0;
  if (builtAt > newestSource(path.join(ROOT, "web"))) return;
  execFileSync(process.execPath, [path.join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--config", "web/vite.config.ts", "--logLevel", "warn"], {
    cwd: ROOT,
    stdio: "inherit",
  });
}

/** Playwright gives each launch a fresh, temporary profile directory. */
export async function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    // Without the background-networking switches Chromium waits on services a closed network never answers.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/**
 * A fresh browser profile (own cookies) signed in through the login form, on the user's home
 * view, or at `hash` (a Zulip URL such as `#feed`) when given.
 */
export async function signedIn(browser: Browser, baseUrl: string, email: string, password: string, hash?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto("/");
  await page.fill("#username", email);
  await page.fill("#password", password);
  await page.click("button[type=submit]");
  await page.waitForSelector(".left-sidebar");
  if (hash) await page.goto(`/${hash}`);
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
}
