/** The email gateway's pure parts: reading its addresses, and what of a mail becomes the message. */
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  channelEmailAddress,
  decodeChannelAddressPart,
  gatewayAddressPart,
  isReplyToken,
  newReplyToken,
  replyEmailAddress,
} from "../../src/domain/email_gateway.js";
import { isForwardedSubject, stripFooter, stripQuotedReply, stripSubjectPrefixes } from "../../src/email_gateway/quotes.js";
import { htmlToMarkdown } from "../../src/email_gateway/html.js";
import { extractBody } from "../../src/email_gateway/deliver.js";

const PATTERN = "%s@gw.example.com";
const TOKEN = "0123456789abcdef0123456789abcdef";

describe("gateway addresses", () => {
  test("reply tokens are mm and 32 hex digits, and read back as reply tokens", () => {
    const token = newReplyToken();
    assert.match(token, /^mm[0-9a-f]{32}$/);
    assert.equal(newReplyToken() === token, false);
    const address = replyEmailAddress(PATTERN, token);
    assert.equal(address, `${token}@gw.example.com`);
    assert.equal(isReplyToken(gatewayAddressPart(PATTERN, address)!), true);
    assert.equal(replyEmailAddress(undefined, token), "");
  });

  test("the pattern's part is found with the domain in any case, and nothing else passes", () => {
    assert.equal(gatewayAddressPart(PATTERN, `a.${TOKEN}@GW.Example.COM`), `a.${TOKEN}`);
    assert.equal(gatewayAddressPart("prefix+%s@gw.example.com", `prefix+${TOKEN}@gw.example.com`), TOKEN);
    for (const address of [`${TOKEN}@gw.example.com.evil`, `${TOKEN}@other.example.com`, "@gw.example.com", `${"a".repeat(250)}@gw.example.com`]) {
      assert.equal(gatewayAddressPart(PATTERN, address), null, address);
    }
    assert.equal(gatewayAddressPart(undefined, `${TOKEN}@gw.example.com`), null);
  });

  test("channel addresses read back to their token and options, with . or + between parts", () => {
    const address = channelEmailAddress(PATTERN, "Build alerts", TOKEN);
    assert.equal(address, `build-alerts.${TOKEN}.show-sender@gw.example.com`);
    assert.deepEqual(decodeChannelAddressPart(gatewayAddressPart(PATTERN, address)!), { token: TOKEN, options: { showSender: true } });
    assert.deepEqual(decodeChannelAddressPart(`${TOKEN}`), { token: TOKEN, options: {} });
    assert.deepEqual(decodeChannelAddressPart(`name+${TOKEN}+include-quotes+prefer-html`), {
      token: TOKEN,
      options: { includeQuotes: true, preferText: false },
    });
    assert.deepEqual(decodeChannelAddressPart(`name.${TOKEN}.include-footer.prefer-text`).options, { includeFooter: true, preferText: true });
    // Names that are not options stay parts of the address: "constructor" is no option.
    assert.deepEqual(decodeChannelAddressPart(`constructor.${TOKEN}`), { token: TOKEN, options: {} });
    assert.equal(isReplyToken(TOKEN), false);
  });
});

describe("quoted replies", () => {
  test("an attribution line and everything after it go", () => {
    assert.equal(stripQuotedReply("Sounds good.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Bob <bob@example.com> wrote:\n> earlier\n> text\n"), "Sounds good.");
    assert.equal(stripQuotedReply("Oui.\n\nLe lun. 1 janv. 2024 à 10:00, Bob <bob@example.com> a écrit :\n> avant\n"), "Oui.");
    assert.equal(stripQuotedReply("Ja.\n\nAm 01.01.2024 um 10:00 schrieb Bob:\n> vorher\n"), "Ja.");
    // Clients wrap a long attribution over two lines.
    assert.equal(stripQuotedReply("Yes.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Bob Example\n<bob@example.com> wrote:\n> earlier\n"), "Yes.");
  });

  test("Outlook's separators and header blocks start the quote", () => {
    assert.equal(stripQuotedReply("Done.\n\n-----Original Message-----\nFrom: Bob\nSent: Monday\nold"), "Done.");
    assert.equal(stripQuotedReply("Done.\n\nFrom: Bob <bob@example.com>\nSent: Monday, January 1, 2024\nTo: me\nSubject: x\n\nold"), "Done.");
    // A "From:" line without the rest of a header block is text.
    assert.equal(stripQuotedReply("From: the team\nthanks everyone"), "From: the team\nthanks everyone");
  });

  test("a closing run of quoted lines goes; quotes answered in between stay", () => {
    assert.equal(stripQuotedReply("reply\n\n> q1\n> q2\n\n"), "reply");
    const inline = "> question one\nanswer one\n> question two\nanswer two";
    assert.equal(stripQuotedReply(inline), inline);
  });

  test("a mail that is all quote, or a forward, is kept whole", () => {
    assert.equal(stripQuotedReply("> only a quote\n"), "> only a quote\n");
    const forward = "---------- Forwarded message ---------\nFrom: Bob\nDate: Monday\n\nOn Mon, Bob wrote:\n> x";
    assert.equal(stripQuotedReply(forward), forward);
  });

  test("a large mail is read in time proportional to its size", () => {
    const text = "> a\n".repeat(20_000) + "text\n" + "> b\n".repeat(20_000);
    assert.equal(stripQuotedReply(text).endsWith("text"), true);
  });
});

describe("signatures and subjects", () => {
  test("one -- line starts the signature; with several, nothing is cut", () => {
    assert.equal(stripFooter("body\n--\nJane\nACME"), "body");
    assert.equal(stripFooter("body\n-- \nJane"), "body");
    assert.equal(stripFooter("a\n--\nb\n--\nc"), "a\n--\nb\n--\nc");
    assert.equal(stripFooter("no signature"), "no signature");
  });

  test("reply and forward prefixes go from the subject", () => {
    assert.equal(stripSubjectPrefixes("Re: Fwd: Build failed"), "Build failed");
    assert.equal(stripSubjectPrefixes("RE: AW: SV: topic"), "topic");
    assert.equal(stripSubjectPrefixes("[Fwd: news]"), "news");
    assert.equal(stripSubjectPrefixes("Regarding results"), "Regarding results");
    assert.equal(isForwardedSubject("Fwd: x"), true);
    assert.equal(isForwardedSubject("FW: x"), true);
    assert.equal(isForwardedSubject("Re: x"), false);
  });
});

describe("HTML bodies", () => {
  test("become Markdown: emphasis, links, lists, headings, code, entities", () => {
    assert.equal(
      htmlToMarkdown('<h2>Report</h2><p>Hello <b>there</b> &amp; <i>welcome</i>,<br>see <a href="https://x.example/a">the doc</a>.</p><ul><li>one</li><li>two</li></ul><pre>a  b\n c</pre>', false),
      "## Report\n\nHello **there** & *welcome*,\nsee [the doc](https://x.example/a).\n\n* one\n* two\n\n```\na  b\n c\n```",
    );
  });

  test("scripts, styles and comments are dropped; links to other schemes are plain text", () => {
    assert.equal(htmlToMarkdown('<style>p{}</style><!-- c --><p>hi</p><script>alert(1)</script><a href="javascript:x()">click</a>', false), "hi\n\nclick");
  });

  test("clients' quoted mail is left out unless quotes are asked for", () => {
    const gmail = '<div>Reply</div><div class="gmail_quote"><div class="gmail_attr">On Mon, A wrote:</div><blockquote class="gmail_quote">old <div>nested</div></blockquote></div>';
    assert.equal(htmlToMarkdown(gmail, false), "Reply");
    assert.equal(htmlToMarkdown('<p>Reply</p><blockquote type="cite">old</blockquote>', false), "Reply");
    assert.equal(htmlToMarkdown('<p>Reply</p><div id="appendonsend"></div><hr><b>From:</b> A<p>old</p>', false), "Reply");
    assert.equal(htmlToMarkdown('<p>Reply</p><blockquote type="cite">old<br>text</blockquote>', true), "Reply\n\n> old\n> text");
  });

  test("unclosed and deeply nested markup finishes quickly", () => {
    assert.equal(htmlToMarkdown("<blockquote>".repeat(5000) + "deep", true).endsWith("deep"), true);
    assert.equal(htmlToMarkdown("<!--".repeat(5000) + "x", false), "");
    assert.equal(htmlToMarkdown("<a href='https://x.example'>open", false), "[open](https://x.example)");
  });
});

describe("the body a mail gives", () => {
  test("the text part is preferred; the HTML part when asked for or when the text is empty", () => {
    const both = { text: "plain", html: "<p>rich</p>" } as const;
    assert.equal(extractBody(both, false, true), "plain");
    assert.equal(extractBody(both, false, false), "rich");
    assert.equal(extractBody({ text: "", html: "<p>rich</p>" }, false, true), "rich");
    assert.equal(extractBody({ text: "only text", html: false }, false, false), "only text");
  });

  test("a mail without a usable body is refused", () => {
    assert.throws(() => extractBody({ text: undefined, html: false }, false, true), /Unable to find plaintext or HTML message body/);
    assert.throws(() => extractBody({ text: "", html: "<p></p>" }, false, true), /Email has no nonempty body sections/);
  });
});
