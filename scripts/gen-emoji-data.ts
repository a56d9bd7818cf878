/**
 * Regenerates src/markdown/data/emoji.json, the Unicode emoji names the renderer knows.
 *
 * Which emoji exist comes from emoji-datasource-google; names come from Zulip's own choices
 * (src/markdown/data/emoji_overrides.txt) and otherwise from the CLDR English annotations: the
 * text-to-speech name is the canonical name and the keywords are aliases. Skin-tone variants are
 * left out. Run: node --import tsx scripts/gen-emoji-data.ts
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const PACKAGES = ["emoji-datasource-google@16.0.0", "cldr-annotations-full@48.2.0", "cldr-annotations-derived-full@48.2.0"];
const root = path.resolve(import.meta.dirname, "..");
const dataDir = path.join(root, "src/markdown/data");

const work = fs.mkdtempSync(path.join(os.tmpdir(), "emoji-data-"));
function fetchJson(pkg: string, file: string): any {
  const dir = path.join(work, pkg.split("@")[0]);
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(dir);
    const tgz = execFileSync("npm", ["pack", pkg, "--silent"], { cwd: dir, encoding: "utf8" }).trim().split("\n").pop()!;
    execFileSync("tar", ["xzf", tgz], { cwd: dir });
  }
  return JSON.parse(fs.readFileSync(path.join(dir, "package", file), "utf8"));
}

const emoji: any[] = fetchJson(PACKAGES[0], "emoji.json");
const cldr = fetchJson(PACKAGES[1], "annotations/en/annotations.json").annotations.annotations;
const derived = fetchJson(PACKAGES[2], "annotationsDerived/en/annotations.json").annotationsDerived.annotations;

const codeOf = (unified: string) => unified.toLowerCase().split("-").filter((p) => p !== "fe0f").join("-");
const charsOf = (code: string) => code.split("-").map((h) => String.fromCodePoint(parseInt(h, 16))).join("");

function cleanName(s: string): string {
  return s
    .toLowerCase()
    .replace(/&/g, "and")
    .replace(/[\s-]+/g, "_")
    .replace(/[^\p{L}\p{N}_+]/gu, "")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
}
const ascii = (s: string) => s.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");

const overrides = new Map<string, string[]>();
for (const line of fs.readFileSync(path.join(dataDir, "emoji_overrides.txt"), "utf8").split("\n")) {
  if (!line.trim() || line.startsWith("#")) continue;
  const [code, ...names] = line.trim().split(/\s+/);
  overrides.set(code, names);
}

function annotation(code: string): { tts?: string[]; default?: string[] } | undefined {
  const chars = charsOf(code);
  return cldr[chars] ?? derived[chars] ?? cldr[chars + "\ufe0f"] ?? derived[chars + "\ufe0f"];
}

const entries: { code: string; names: string[]; curated: boolean }[] = [];
for (const e of emoji) {
  if (e.category === "Component" || !e.has_img_google) continue;
  const code = codeOf(e.unified);
  const curated = overrides.get(code);
  if (curated) {
    entries.push({ code, names: curated, curated: true });
    continue;
  }
  const ann = annotation(code);
  const canonical = cleanName(ann?.tts?.[0] ?? e.short_name);
  const aliases = (ann?.default ?? []).map(cleanName).filter((a) => a && a !== canonical);
  entries.push({ code, names: [canonical, ...aliases], curated: false });
}

const canonicalNames = new Set(entries.map((e) => e.names[0]));
const curatedNames = new Set(entries.filter((e) => e.curated).flatMap((e) => e.names));
const aliasCount = new Map<string, number>();
for (const e of entries) if (!e.curated) for (const a of e.names.slice(1)) aliasCount.set(a, (aliasCount.get(a) ?? 0) + 1);

const nameToCode: Record<string, string> = {};
const codeToName: Record<string, string> = {};
for (const e of entries) {
  const [canonical, ...aliases] = e.names;
  if (!e.curated && curatedNames.has(canonical)) continue;
  const kept = e.curated
    ? aliases
    : aliases.filter((a) => !canonicalNames.has(a) && !curatedNames.has(a) && aliasCount.get(a) === 1);
  const all = [canonical, ...kept];
  for (const n of [...all]) if (ascii(n) !== n && ascii(n)) all.push(ascii(n));
  codeToName[e.code] = canonical;
  for (const n of all) if (!(n in nameToCode)) nameToCode[n] = e.code;
}

const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
fs.writeFileSync(
  path.join(dataDir, "emoji.json"),
  JSON.stringify({ name_to_code: sorted(nameToCode), code_to_name: sorted(codeToName) }) + "\n",
);
fs.rmSync(work, { recursive: true, force: true });
console.log(`${Object.keys(codeToName).length} emoji, ${Object.keys(nameToCode).length} names`);
