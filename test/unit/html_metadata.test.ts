import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeEntities, parsePageMetadata } from "../../src/media/html_metadata.js";

test("OpenGraph tags come first, then the title, the meta description and the image after the heading", () => {
  const page = `<html><head><title>T</title><meta name="description" content="D">
    <meta property="og:title" content='OG &amp; title'><meta content="og desc" property="og:description">
    <link rel="alternate" type="application/json+oembed" href="/oembed?u=1"></head>
    <body><h1>H</h1><img src="a.png"><p>P</p></body></html>`;
  assert.deepEqual(parsePageMetadata(page), { title: "OG & title", description: "og desc", image: "a.png", oembedUrl: "/oembed?u=1" });
  assert.deepEqual(parsePageMetadata(`<TITLE>  Spaced\n  title </TITLE><p>first <b>para</b></p><h1>Head</h1><p>after</p>`), {
    title: "Spaced title",
    description: "after",
    image: undefined,
    oembedUrl: undefined,
  });
});

test("comments, scripts and styles hide what looks like markup inside them", () => {
  const page = `<!-- <title>no</title> --><script>"<meta property='og:title' content='no'>"</script><style>p{}</style><title>yes</title>`;
  assert.equal(parsePageMetadata(page).title, "yes");
});

test("entities decode, numeric ones too; unknown and far-away ones stay", () => {
  assert.equal(decodeEntities("a &lt;b&gt; &#65;&#x42; &bogus; & c;"), "a <b> AB &bogus; & c;");
});

test("hostile markup is read in one pass: unclosed quotes, tags and elements end the scan", () => {
  const n = 200_000;
  for (const page of ['<a b="'.repeat(n), "<p>".repeat(n), "<title>".repeat(n), "<".repeat(n), "<h1><p x=".repeat(n)]) {
    const meta = parsePageMetadata(page);
    assert.ok(meta.title === undefined || meta.title.length <= 1000);
  }
});
