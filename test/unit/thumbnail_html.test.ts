import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { rewriteThumbnailedImages, type UploadImagePreview } from "../../src/media/thumbnail_html.js";
import { formatName, parseFormatName } from "../../src/media/thumbnails.js";
import { renderMarkdown } from "../../src/markdown/render.js";

const path = "2/ab/token/cat.png";
const pending: UploadImagePreview = { url: null, animated: false, width: 300, height: 200, contentType: "image/png" };
const ready: UploadImagePreview = { ...pending, url: `/user_uploads/thumbnail/${path}/840x560.webp` };

describe("rendering uploaded images", () => {
  test("an upload with no image data gets no preview; one with data gets the placeholder", () => {
    const content = `[cat.png](/user_uploads/${path})`;
    assert.equal(renderMarkdown(content).html, `<p><a href="/user_uploads/${path}">cat.png</a></p>`);
    const html = renderMarkdown(content, {}, new Map([[path, pending]])).html;
    assert.equal(
      html,
      `<p><a href="/user_uploads/${path}">cat.png</a></p>\n` +
        `<div class="message_inline_image"><a href="/user_uploads/${path}" title="cat.png"><img class="image-loading-placeholder" data-original-content-type="image/png" data-original-dimensions="300x200" src="/static/images/loading/loader-black.svg"></a></div>`,
    );
    assert.equal(renderMarkdown(content, {}, new Map([[path, pending]])).hasImage, true);
  });

  test("the rewrite swaps ready placeholders, keeps pending ones, drops deleted ones", () => {
    const html = renderMarkdown(`[cat.png](/user_uploads/${path})`, {}, new Map([[path, pending]])).html;
    assert.deepEqual(rewriteThumbnailedImages(html, new Map([[path, pending]])), { html: null, remaining: new Set([path]) });
    const swapped = rewriteThumbnailedImages(html, new Map([[path, { ...ready, animated: true, transcoded: "4032x3024.webp" }]]));
    assert.equal(
      swapped.html,
      `<p><a href="/user_uploads/${path}">cat.png</a></p>\n` +
        `<div class="message_inline_image"><a href="/user_uploads/${path}" title="cat.png"><img src="${ready.url}" data-original-dimensions="300x200" data-original-content-type="image/png" data-animated="true" data-transcoded-image="4032x3024.webp"></a></div>`,
    );
    // Run again on its own output: nothing left to do.
    assert.equal(rewriteThumbnailedImages(swapped.html!, new Map([[path, ready]])).html, null);
    assert.equal(rewriteThumbnailedImages(html, new Map(), new Set([path])).html, `<p><a href="/user_uploads/${path}">cat.png</a></p>`);
  });

  test("content types are escaped in both forms", () => {
    const odd = { ...ready, contentType: 'image/png"><script>' };
    const html = renderMarkdown(`[cat.png](/user_uploads/${path})`, {}, new Map([[path, { ...odd, url: null }]])).html;
    assert.ok(!html.includes("<script>"));
    const swapped = rewriteThumbnailedImages(html, new Map([[path, odd]])).html!;
    assert.ok(!swapped.includes("<script>"));
    assert.ok(swapped.includes('data-original-content-type="image/png&quot;&gt;&lt;script&gt;"'));
  });
});

describe("thumbnail format names", () => {
  test("round-trip Zulip's names; anything else is refused", () => {
    for (const name of ["840x560.webp", "840x560-anim.webp", "4032x3024.webp"]) assert.equal(formatName(parseFormatName(name)!), name);
    for (const bad of ["840x560.png", "840x560", "x560.webp", "840x560-anim.webp.png", "../840x560.webp", "123456x1.webp"]) {
      assert.equal(parseFormatName(bad), undefined, bad);
    }
  });
});
