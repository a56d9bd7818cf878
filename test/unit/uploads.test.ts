import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  contentDisposition,
  linkedUploadPaths,
  sanitizeFileName,
  servedInline,
  truncateFileName,
  uploadContentType,
  uploadedFileName,
} from "../../src/domain/uploads.js";
import { checkEmojiName, normalizeEmojiName, sniffImageType } from "../../src/domain/custom_emoji.js";

describe("upload names", () => {
  test("sanitizing keeps letters and digits of any script, dots, dashes and underscores", () => {
    assert.equal(sanitizeFileName("Résumé 2024 (v2).pdf"), "Résumé-2024-v2.pdf");
    assert.equal(sanitizeFileName("日本語 ファイル.txt"), "日本語-ファイル.txt");
    assert.equal(sanitizeFileName("a -- b\t\tc.txt"), "a-b-c.txt");
    assert.equal(sanitizeFileName("ﬁle.txt"), "file.txt");
    assert.equal(sanitizeFileName("☃"), "uploaded-file");
    assert.equal(sanitizeFileName("."), "uploaded-file");
    assert.equal(sanitizeFileName("trailing_-"), "trailing_-");
  });

  test("truncation counts UTF-8 bytes and keeps the extension", () => {
    assert.equal(truncateFileName("é".repeat(200) + ".txt", 255), "é".repeat(125) + ".txt");
    assert.equal(truncateFileName("x." + "e".repeat(300), 10), "x.eeeeeeee");
    assert.equal(truncateFileName("short.txt", 255), "short.txt");
  });

  test("the uploaded name is URL-unquoted and loses NUL characters", () => {
    assert.equal(uploadedFileName("a%20b.txt"), "a b.txt");
    assert.equal(uploadedFileName("100%.txt"), "100%.txt");
    assert.equal(uploadedFileName("a\0b"), "ab");
  });
});

describe("content types", () => {
  test("the declared type wins unless it is the multipart default", () => {
    assert.equal(uploadContentType("image/png", "x.bin"), "image/png");
    assert.equal(uploadContentType("text/plain", "x.png"), "image/png");
    assert.equal(uploadContentType("text/plain; charset=utf-8", "x.txt"), "text/plain; charset=utf-8");
    assert.equal(uploadContentType("application/octet-stream", "x.pdf"), "application/pdf");
    assert.equal(uploadContentType(undefined, "x.unknown"), "application/octet-stream");
  });

  test("only safe types are served inline", () => {
    for (const t of ["image/png", "application/pdf", "text/plain; charset=utf-8", "video/mp4"]) assert.equal(servedInline(t), true, t);
    for (const t of ["text/html", "image/svg+xml", "application/javascript", "text/xml"]) assert.equal(servedInline(t), false, t);
  });

  test("Content-Disposition quotes ASCII names and percent-encodes others", () => {
    assert.equal(contentDisposition('a "b"\\c.txt', false), 'inline; filename="a \\"b\\"\\\\c.txt"');
    assert.equal(contentDisposition("naïve.txt", true), "attachment; filename*=utf-8''na%C3%AFve.txt");
    assert.equal(contentDisposition("bad\r\nname.txt", true), 'attachment; filename="badname.txt"');
  });
});

describe("links to uploads", () => {
  test("absolute-path and relative links count, each once, decoded", () => {
    const html =
      '<p><a href="/user_uploads/2/ab/tok/a.txt">a</a> <a href="user_uploads/2/cd/tok/b%20c.txt">b</a> ' +
      '<a href="/user_uploads/2/ab/tok/a.txt?x=1">again</a> <a href="https://elsewhere.example/user_uploads/2/x/y/z">no</a> ' +
      '<a href="/user_uploads/temporary/abc/d.txt">no</a> <a href="/user_uploads/2/e/f/g&amp;h.txt">amp</a></p>';
    assert.deepEqual(linkedUploadPaths(html), ["2/ab/tok/a.txt", "2/cd/tok/b c.txt", "2/e/f/g&h.txt"]);
  });
});

describe("custom emoji", () => {
  test("names", () => {
    assert.equal(normalizeEmojiName("  big party "), "big_party");
    for (const ok of ["a", "party-parrot", "x_1", "9"]) assert.doesNotThrow(() => checkEmojiName(ok), ok);
    assert.throws(() => checkEmojiName(""), { msg: "Emoji name is missing" });
    assert.throws(() => checkEmojiName("a_"), { msg: "Emoji names must end with either a letter or digit." });
    assert.throws(() => checkEmojiName("A"), /lowercase English letters/);
    assert.throws(() => checkEmojiName("a.b"), /lowercase English letters/);
  });

  test("image types are recognized by their first bytes", () => {
    assert.equal(sniffImageType(Buffer.from("89504e470d0a1a0a00", "hex")), "image/png");
    assert.equal(sniffImageType(Buffer.from("GIF87a...")), "image/gif");
    assert.equal(sniffImageType(Buffer.from("ffd8ffe000", "hex")), "image/jpeg");
    assert.equal(sniffImageType(Buffer.from("RIFF\0\0\0\0WEBPVP8 ")), "image/webp");
    assert.equal(sniffImageType(Buffer.from("\0\0\0\x1cftypavif")), "image/avif");
    assert.equal(sniffImageType(Buffer.from("<svg></svg>")), undefined);
    assert.equal(sniffImageType(Buffer.alloc(0)), undefined);
  });
});
