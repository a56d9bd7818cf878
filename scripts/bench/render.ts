/**
 * Markdown rendering throughput on a realistic mix of messages (plain text, mentions, code,
 * links, emoji, a few linkifiers), beside plain markdown-it on the same inputs in the same run.
 *   npm run bench -- render [seconds per renderer, default 3]
 */
import MarkdownIt from "markdown-it";
import { renderMarkdown, type RenderContext } from "../../src/markdown/render.js";

const users = Array.from({ length: 200 }, (_, i) => ({ id: i + 1, fullName: `User Number${i + 1}`, isActive: true }));
const ctx: RenderContext = {
  realmUrl: "https://chat.example.com",
  users,
  groups: [{ id: 1, name: "backend", deactivated: false }],
  channels: [
    { id: 1, name: "general" },
    { id: 2, name: "design" },
  ],
  linkifiers: [
    { pattern: "#(?P<id>[0-9]{2,8})", url_template: "https://tracker.example.com/ticket/{id}" },
    { pattern: "PR-(?P<id>[0-9]+)", url_template: "https://git.example.com/pulls/{id}" },
    { pattern: "(?P<repo>[a-z]+)/(?P<repo2>[a-z]+)#(?P<id>[0-9]+)", url_template: "https://git.example.com/{repo}/{repo2}/issues/{id}" },
  ],
};

const MESSAGES = [
  "ok, sounds good",
  "I'll take a look after lunch.",
  "Thanks @**User Number12**! That fixed it.",
  "@**User Number3** @**User Number40** can you review PR-1234 before the release? It touches #4521 too.",
  "The build is failing on main:\n```python\ndef test_render():\n    assert render('**x**') == '<p><strong>x</strong></p>'\n```\nAny idea?",
  "See https://docs.example.com/guide/setup#install and the notes in #**design>mockups**.",
  "**Reminder:** standup moved to 10:30 today :smile:",
  "Steps:\n1. pull the latest `main`\n2. run `npm ci`\n3. restart the server\n\nThen it should work.",
  "> we should ship it on Friday\n\nagreed, but let's wait for the `backend` team @*backend*",
  "lol 😂 that's amazing",
  "Logs:\n\n    Error: ECONNREFUSED 127.0.0.1:5432\n        at TCPConnectWrap.afterConnect\n\nlooks like postgres is down",
  "Tracking in acme/widgets#88 — *should* be a quick fix, ~~maybe~~ hopefully.",
  "Here's the design: [mockup v2](https://files.example.com/mockup-v2.pdf) and the old one https://files.example.com/mockup-v1.pdf",
  "| step | status |\n|---|---|\n| build | ok |\n| test | failing |",
  "@**all** the office is closed on Monday.",
  "Can someone explain how `Array.prototype.flatMap` differs from `map(...).flat()`? I keep forgetting.",
];

function measure(label: string, seconds: number, render: (s: string) => string): number {
  for (let i = 0; i < 200; i++) render(MESSAGES[i % MESSAGES.length]);
  const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const started = process.hrtime.bigint();
  let count = 0;
  let bytes = 0;
  while (process.hrtime.bigint() < deadline) {
    for (const m of MESSAGES) bytes += render(m).length;
    count += MESSAGES.length;
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const rate = count / elapsed;
  console.log(`${label.padEnd(28)} ${Math.round(rate).toString().padStart(8)} renders/s  (${count} renders, ${bytes} bytes of HTML)`);
  return rate;
}

export async function run(args: string[]): Promise<void> {
  const seconds = Number(args[0] ?? 3);
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
  console.log(`Rendering ${MESSAGES.length} realistic messages repeatedly, ${seconds}s per renderer (node ${process.version}).`);
  const ours = measure("Zulip-flavored (confab)", seconds, (s) => renderMarkdown(s, ctx).html);
  const plain = measure("plain markdown-it 15", seconds, (s) => md.render(s));
  console.log(`ratio: confab renders at ${(ours / plain).toFixed(2)}x the speed of plain markdown-it (${(plain / ours).toFixed(1)}x slower)`);
}
