import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { renderMarkdown, type RenderContext } from "../../src/markdown/render.js";
import { linkifierPatternError, linkifierPatternGroups } from "../../src/markdown/linkifiers.js";
import { UriTemplate } from "../../src/markdown/uri_template.js";

const withLinkifiers = (...linkifiers: RenderContext["linkifiers"] & object): RenderContext => ({
  realmUrl: "https://chat.example.com",
  linkifiers,
});
const trac = { pattern: "#(?P<id>[0-9]{2,8})", url_template: "https://trac.example.com/ticket/{id}" };

describe("linkifiers", () => {
  test("link the match, with delimiters kept outside the link", () => {
    assert.equal(
      renderMarkdown("see #224, (#99) and issue#124 or #1124z", withLinkifiers(trac)).html,
      '<p>see <a href="https://trac.example.com/ticket/224">#224</a>, (<a href="https://trac.example.com/ticket/99">#99</a>) and issue#124 or #1124z</p>',
    );
  });

  test("not inside code or Markdown links", () => {
    assert.equal(
      renderMarkdown("`#224` [#225](https://x.com)", withLinkifiers(trac)).html,
      '<p><code>#224</code> <a href="https://x.com">#225</a></p>',
    );
  });

  test("earlier linkifiers win where patterns overlap", () => {
    const first = { pattern: "ZBUG_(?P<id>[0-9]+)", url_template: "https://bugs.example.com/{id}" };
    const second = { pattern: "(?P<word>ZBUG_[0-9]+)", url_template: "https://other.example.com/{word}" };
    assert.equal(
      renderMarkdown("ZBUG_12", withLinkifiers(first, second)).html,
      '<p><a href="https://bugs.example.com/12">ZBUG_12</a></p>',
    );
    assert.equal(
      renderMarkdown("ZBUG_12", withLinkifiers(second, first)).html,
      '<p><a href="https://other.example.com/ZBUG_12">ZBUG_12</a></p>',
    );
  });

  test("URL templates are RFC 6570: simple variables are percent-encoded, {+var} keeps reserved characters", () => {
    const simple = { pattern: "FOO_(?P<path>[a-z/]+)", url_template: "https://x.com/{path}" };
    const reserved = { pattern: "BAR_(?P<path>[a-z/]+)", url_template: "https://x.com/{+path}" };
    assert.equal(
      renderMarkdown("FOO_a/b BAR_a/b", withLinkifiers(simple, reserved)).html,
      '<p><a href="https://x.com/a%2Fb">FOO_a/b</a> <a href="https://x.com/a/b">BAR_a/b</a></p>',
    );
  });

  test("a linkifier whose URL is not allowed, or that does not compile, links nothing", () => {
    const bad = { pattern: "(foo", url_template: "https://x.com" };
    const js = { pattern: "(?P<x>JS[0-9])", url_template: "javascript:{x}" };
    assert.equal(renderMarkdown("(foo JS1", withLinkifiers(bad, js)).html, "<p>(foo JS1</p>");
  });

  test("a pathological pattern cannot stall rendering of a 10,000-character message", () => {
    // Catastrophic for a backtracking engine; linear for RE2.
    const evil = { pattern: "(?P<x>(a+)+)b", url_template: "https://x.com/{x}" };
    // With a backtracking engine this would not finish (or would hit the render time limit).
    const message = "a".repeat(9999) + "!";
    assert.equal(renderMarkdown(message, withLinkifiers(evil)).html, `<p>${message}</p>`);
  });

  test("a pattern that could match placeholders links plain text only, and terminates", () => {
    const anything = { pattern: "(?P<x>\\S+)", url_template: "https://x.com/{x}" };
    assert.equal(
      renderMarkdown("a `b` :c: d", withLinkifiers(anything)).html,
      '<p><a href="https://x.com/a">a</a> <code>b</code> :<a href="https://x.com/c%3A">c:</a> <a href="https://x.com/d">d</a></p>',
    );
    const digits = { pattern: "(?P<n>[0-9]+)", url_template: "https://x.com/{n}" };
    assert.equal(
      renderMarkdown("**b** 12", withLinkifiers(digits)).html,
      '<p><strong>b</strong> <a href="https://x.com/12">12</a></p>',
    );
    const rest = { pattern: "(?P<x>.+)", url_template: "https://x.com/{x}" };
    assert.equal(renderMarkdown("a b", withLinkifiers(rest)).html, '<p><a href="https://x.com/a%20b">a b</a></p>');
  });

  test("every match of a long message is linked", () => {
    const out = renderMarkdown("#12 ".repeat(2500).trim(), withLinkifiers(trac)).html;
    assert.equal(out.match(/<a href="https:\/\/trac.example.com\/ticket\/12">#12<\/a>/g)?.length, 2500);
  });
});

describe("linkifier pattern errors", () => {
  test("valid RE2 patterns, including named groups", () => {
    assert.equal(linkifierPatternError("#(?P<id>[0-9]+)"), null);
  });
  test("errors are reported in RE2's words", () => {
    assert.equal(linkifierPatternError("(foo"), "missing ): (foo");
    assert.equal(linkifierPatternError("ZUL-(?P<id>\\d????)"), "bad repetition operator: ????");
    assert.equal(linkifierPatternError("a{2,1}"), "invalid repetition size: {2,1}");
    assert.equal(linkifierPatternError("*a"), "no argument for repetition operator: *");
    assert.equal(linkifierPatternError("a\\"), "trailing \\");
    assert.equal(linkifierPatternError("[a"), "missing ]: [a");
    assert.equal(linkifierPatternError("a)"), "unexpected ): a)");
    assert.equal(linkifierPatternError("a\\8"), "invalid escape sequence: \\8");
    assert.equal(linkifierPatternError("[z-a]"), "invalid character class range: z-a");
    assert.equal(linkifierPatternError("(?P<n"), "invalid named capture group: (?P<n");
  });
  test("look-around and other Perl operators RE2 lacks", () => {
    assert.equal(linkifierPatternError("(?<=x)y"), "invalid perl operator: (?<=");
    assert.equal(linkifierPatternError("(?<!x)y"), "invalid perl operator: (?<!");
    assert.equal(linkifierPatternError("x(?=y)"), "invalid perl operator: (?=");
    assert.equal(linkifierPatternError("x(?!y)"), "invalid perl operator: (?!");
  });
  test("patterns that compile to too large a program are refused as RE2 refuses them", () => {
    assert.equal(linkifierPatternError(".{999}"), null);
    assert.equal(linkifierPatternError(".{999}.{999}.{99}"), "pattern too large - compile failed");
    assert.equal(linkifierPatternError("(".repeat(2000) + ")".repeat(2000)), "pattern too large - compile failed");
    assert.equal(linkifierPatternGroups("(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)").sort().join(), "id,org,repo");
  });
  test("a stored pattern that is now refused matches nothing", () => {
    const big = { pattern: "(?P<x>a{999}b{999}c{99})", url_template: "https://x.com/{x}" };
    const text = "a".repeat(999) + "b".repeat(999) + "c".repeat(99);
    assert.equal(renderMarkdown(text, withLinkifiers(big)).html, `<p>${text}</p>`);
  });
});

describe("URI templates", () => {
  test("valid and invalid templates", () => {
    for (const t of ["$not_a_url$", "%ba", "%%(foo)s", "{+foo,bar}", "{?foo*}", "{#fragment:5}", "{/location}", "{.domain}", "https://x.com/{id}"]) {
      assert.ok(UriTemplate.parse(t), t);
    }
    for (const t of ["{id", "https://example.com/{foo", "{{}", "{//foo}", "{bar++}", "a}b"]) {
      assert.equal(UriTemplate.parse(t), null, t);
    }
  });
  test("expansion by operator", () => {
    const v = { a: "x y", b: "1/2", e: "" };
    const expand = (t: string) => UriTemplate.parse(t)!.expand(v);
    assert.equal(expand("{a}"), "x%20y");
    assert.equal(expand("{+b}"), "1/2");
    assert.equal(expand("{#b}"), "#1/2");
    assert.equal(expand("{.a}"), ".x%20y");
    assert.equal(expand("{/a,b}"), "/x%20y/1%2F2");
    assert.equal(expand("{;a,e}"), ";a=x%20y;e");
    assert.equal(expand("{?a,e,missing}"), "?a=x%20y&e=");
    assert.equal(expand("{&b}"), "&b=1%2F2");
    assert.equal(expand("{a:1}"), "x");
    assert.deepEqual(UriTemplate.parse("x{a}{+b}")!.variables(), ["a", "b"]);
    // Literals keep reserved characters and %-escapes; a lone "%" is escaped.
    assert.equal(UriTemplate.parse("https://x.com/A%20Test/%%%ba/{a}")!.expand(v), "https://x.com/A%20Test/%25%25%ba/x%20y");
  });
});
