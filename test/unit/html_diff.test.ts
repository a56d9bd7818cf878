import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_DIFF_CELLS, highlightHtmlDifferences } from "../../src/domain/html_diff.js";

test("unchanged HTML comes back as it was", () => {
  assert.equal(highlightHtmlDifferences("<p>same words</p>", "<p>same words</p>"), "<p>same words</p>");
});

const withoutDeletions = (html: string) =>
  html.replace(/<span class="highlight_text_deleted">[^<]*<\/span>/g, "").replace(/<span class="highlight_text_inserted">([^<]*)<\/span>/g, "$1");

test("added and removed words are marked, inside the new version's tags", () => {
  assert.equal(
    highlightHtmlDifferences("<p>hello old world</p>", "<p>hello new world</p>"),
    '<p>hello <span class="highlight_text_deleted">old</span><span class="highlight_text_inserted">new</span> world</p>',
  );
  assert.equal(highlightHtmlDifferences("<p>a</p>", "<p>a b</p>"), '<p>a<span class="highlight_text_inserted"> b</span></p>');
  const before = "<p>the quick brown fox jumps over the lazy dog</p>";
  const after = "<p>a quick red fox leaps over the dog, twice</p>";
  const diff = highlightHtmlDifferences(before, after);
  assert.equal(withoutDeletions(diff), after);
  const deleted = [...diff.matchAll(/<span class="highlight_text_deleted">([^<]*)<\/span>/g)].map((m) => m[1]).join("|");
  for (const word of ["the", "brown", "jumps", "lazy"]) assert.ok(deleted.includes(word), `${word} in ${deleted}`);
});

test("removed tags are dropped and added tags kept, so the result nests as the new HTML", () => {
  assert.equal(
    highlightHtmlDifferences("<p>keep <strong>bold</strong></p>", "<p>keep <em>soft</em></p>"),
    '<p>keep <span class="highlight_text_deleted">bold</span><em><span class="highlight_text_inserted">soft</span></em></p>',
  );
  assert.equal(
    highlightHtmlDifferences("<p>one</p>", "<p>one</p>\n<p>two</p>"),
    '<p>one</p><span class="highlight_text_inserted">\n</span><p><span class="highlight_text_inserted">two</span></p>',
  );
});

test("very different long versions are shown as replaced, quickly", () => {
  const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");
  const n = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) * 4;
  const started = performance.now();
  const out = highlightHtmlDifferences(`<p>${words("a", n)}</p>`, `<p>${words("b", n)}</p>`);
  assert.ok(performance.now() - started < 1000);
  assert.ok(out.startsWith('<p><span class="highlight_text_deleted">a0 '));
  assert.ok(out.endsWith(`<span class="highlight_text_inserted">b0 ${words("b", n).slice(3)}</span></p>`));
});
