import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { topicLinks } from "../../src/markdown/topic_links.js";
import type { Linkifier } from "../../src/markdown/linkifiers.js";

const trac: Linkifier = { pattern: "#(?P<id>[0-9]{2,8})", url_template: "https://trac.example.com/ticket/{id}" };
const link = (url: string, text = url) => ({ url, text });
const ticket = (n: string) => link(`https://trac.example.com/ticket/${n}`, `#${n}`);

describe("topic links", () => {
  test("web addresses; without a scheme they become https", () => {
    const cases: [string, { url: string; text: string }[]][] = [
      ["https://google.com/hello-world", [link("https://google.com/hello-world")]],
      ["http://google.com/hello-world", [link("http://google.com/hello-world")]],
      ["Without scheme google.com/hello-world", [link("https://google.com/hello-world", "google.com/hello-world")]],
      ["Without scheme random.words/hello-world", []],
      [
        "Try out http://ftp.debian.org, https://google.com/ and https://google.in/.",
        [link("http://ftp.debian.org"), link("https://google.com/"), link("https://google.in/")],
      ],
      ["google.in google.com", [link("https://google.in", "google.in"), link("https://google.com", "google.com")]],
      ["https://google.com/test?foo=bar", [link("https://google.com/test?foo=bar")]],
      ["Have you seen github.com/zulip?", [link("https://github.com/zulip", "github.com/zulip")]],
      ["Do you like https://example.com? I love it.", [link("https://example.com")]],
    ];
    for (const [topic, expected] of cases) assert.deepEqual(topicLinks(topic, []), expected, topic);
  });

  test("linkifier matches and web addresses, in the order they appear", () => {
    assert.deepEqual(topicLinks("#444", [trac]), [ticket("444")]);
    assert.deepEqual(topicLinks("no match here", [trac]), []);
    assert.deepEqual(topicLinks("#444 https://google.com", [trac]), [ticket("444"), link("https://google.com")]);
    assert.deepEqual(topicLinks("#111 https://google.com #111 #222 #111 https://google.com #222", [trac]), [
      ticket("111"),
      link("https://google.com"),
      ticket("111"),
      ticket("222"),
      ticket("111"),
      link("https://google.com"),
      ticket("222"),
    ]);
    assert.deepEqual(topicLinks("#444 #555 #666", [trac]), [ticket("444"), ticket("555"), ticket("666")]);
  });

  test("the same word boundaries as in messages", () => {
    const linked = (topic: string) => topicLinks(topic, [{ ...trac, pattern: "#(?P<id>[0-9]+)" }]).length === 1;
    for (const yes of ["Hello #123 World", "Hello\u00a0#123\u00a0World", "チケットは #123 です", "(#123)", "#123>", '"#123"', "#123@"]) {
      assert.ok(linked(yes), yes);
    }
    for (const no of ["Hello #123World", "Hello#123 World", "チケットは#123です", "チケットは #123です", ")#123(", "##123"]) {
      assert.ok(!linked(no), no);
    }
  });

  test("URLs are expanded, not checked or escaped", () => {
    const url = { pattern: "url-(?P<id>[0-9]+)", url_template: "https://example.com/A%20Test/%%%ba/{id}" };
    assert.deepEqual(topicLinks("url-123 is well-escaped", [url]), [link("https://example.com/A%20Test/%25%25%ba/123", "url-123")]);
  });

  test("earlier linkifiers win where matches overlap, and linkifiers win over web addresses", () => {
    const hello = { pattern: "hello#(?P<id>[0-9]+)", url_template: "https://trac.example.com/hello/{id}" };
    assert.deepEqual(topicLinks("hello#123 #234", [trac, hello]), [link("https://trac.example.com/hello/123", "hello#123"), ticket("234")]);

    const abc = [
      { pattern: "(?P<id>ABC-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
      { pattern: "(?P<id>[A-Z][A-Z0-9]*-[0-9]+)", url_template: "https://other-trac.example.com/ticket/{id}" },
      { pattern: "(?P<id>[A-Z][A-Z0-9]+)", url_template: "https://yet-another-trac.example.com/ticket/{id}" },
    ];
    assert.deepEqual(topicLinks("ABC-123", abc), [link("https://trac.example.com/ticket/ABC-123", "ABC-123")]);
    assert.deepEqual(topicLinks("ASD-123 ABC-123 QWE", abc), [
      link("https://other-trac.example.com/ticket/ASD-123", "ASD-123"),
      link("https://trac.example.com/ticket/ABC-123", "ABC-123"),
      link("https://yet-another-trac.example.com/ticket/QWE", "QWE"),
    ]);

    const withUrls = [
      { pattern: "ABC-42", url_template: "https://google.com" },
      { pattern: "com.+(?P<id>ABC\\-[0-9]+)", url_template: "https://trac.example.com/ticket/{id}" },
    ];
    assert.deepEqual(topicLinks("com ABC-42", withUrls), [link("https://google.com", "ABC-42")]);
    assert.deepEqual(topicLinks("https://foo.com/ABC-123", withUrls), [link("https://foo.com/ABC-123")]);
    assert.deepEqual(topicLinks("com https://foo.com/ABC-123", withUrls), [
      link("https://trac.example.com/ticket/ABC-123", "com https://foo.com/ABC-123"),
    ]);

    const byPriority = [
      { pattern: "http", url_template: "http://example.com/" },
      { pattern: "b#(?P<id>[a-z]+)", url_template: "http://example.com/b/{id}" },
      { pattern: "a#(?P<aid>[a-z]+) b#(?P<bid>[a-z]+)", url_template: "http://example.com/a/{aid}/b/{bid}" },
      { pattern: "a#(?P<id>[a-z]+)", url_template: "http://example.com/a/{id}" },
    ];
    assert.deepEqual(topicLinks("http://foo.com a#asd b#bar", byPriority), [
      link("http://example.com/", "http"),
      link("http://example.com/a/asd", "a#asd"),
      link("http://example.com/b/bar", "b#bar"),
    ]);
  });

  test("a pattern that matches nothing at all still ends", () => {
    assert.deepEqual(topicLinks("!", [{ pattern: "(?P<x>a*)", url_template: "https://x.com/{x}" }]), [link("https://x.com/", "")]);
  });
});
