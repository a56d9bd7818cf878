import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { absoluteLinks, notificationEmailBodies } from "../../src/notifications/templates.js";

const footer = { realmName: "A & B", settingsUrl: "https://chat.example/#settings/notifications", unsubscribeUrl: "https://chat.example/u", reason: "Because." };

describe("notification email bodies", () => {
  test("relative links in a rendering point at the server; others are left alone", () => {
    assert.equal(
      absoluteLinks('<a href="/user_uploads/1/a.png">f</a><img src="/x.png"><a href="//cdn.example/y">y</a><a href="https://e.x/">z</a>', "https://chat.example"),
      '<a href="https://chat.example/user_uploads/1/a.png">f</a><img src="https://chat.example/x.png"><a href="//cdn.example/y">y</a><a href="https://e.x/">z</a>',
    );
  });

  test("names and headings are escaped in HTML; messages of one sender are grouped", () => {
    const { text, html } = notificationEmailBodies({
      heading: "#<b>ops</b> > fire",
      narrowUrl: "https://chat.example/#narrow/channel/1-ops/topic/fire",
      messages: [
        { senderName: "Eve <script>", html: "<p>one</p>", text: "one" },
        { senderName: "Eve <script>", html: "<p>two</p>", text: "two" },
      ],
      contentHidden: false,
      replyPosts: true,
      footer,
      base: "https://chat.example",
    });
    assert.doesNotMatch(html, /<script>|<b>ops/);
    assert.match(html, /Eve &lt;script&gt;/);
    assert.equal(html.match(/<strong>/g)!.length, 1);
    assert.match(text, /^#<b>ops<\/b> > fire\n\nEve <script>:\none\n\ntwo\n/);
    assert.match(text, /Reply to this email directly/);
    assert.match(html, /A &amp; B/);
  });

  test("hidden content leaves the messages out", () => {
    const { text } = notificationEmailBodies({ heading: "DMs with Ann", narrowUrl: "u", messages: [], contentHidden: true, replyPosts: false, footer, base: "b" });
    assert.match(text, /keep their content out of emails/);
  });
});
