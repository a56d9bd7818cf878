import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { renderMarkdown, type RenderContext } from "../../src/markdown/render.js";

const ctx: RenderContext = {
  realmUrl: "https://chat.example.com",
  users: [
    { id: 10, fullName: "King Hamlet", isActive: true },
    { id: 11, fullName: "Othello", isActive: true },
    { id: 12, fullName: "Ghost", isActive: false },
    { id: 13, fullName: "Mark Twin", isActive: true },
    { id: 14, fullName: "Mark Twin", isActive: true },
  ],
  groups: [
    { id: 20, name: "hamletcharacters", deactivated: false },
    { id: 21, name: "retired", deactivated: true },
    { id: 22, name: "role:administrators", deactivated: false, displayName: "Administrators" },
  ],
  channels: [
    { id: 1, name: "Denmark" },
    { id: 2, name: "social life" },
  ],
  realmEmoji: { burrito: "/user_avatars/2/emoji/images/burrito.png" },
};

const html = (md: string, c: RenderContext = ctx) => renderMarkdown(md, c).html;

describe("paragraphs and line breaks", () => {
  test("a blank line separates paragraphs and a newline is a <br>", () => {
    assert.equal(html("one\ntwo\n\nthree"), "<p>one<br>\ntwo</p>\n<p>three</p>");
  });
  test("empty and whitespace-only content renders to nothing", () => {
    assert.equal(html(""), "");
    assert.equal(html("  \n\t\n"), "");
  });
  test("headings need a space after the hashes", () => {
    assert.equal(html("# Title"), "<h1>Title</h1>");
    assert.equal(html("#hashtag"), "<p>#hashtag</p>");
  });
});

describe("emphasis", () => {
  test("stars make emphasis and strong; underscores and multi-line stars do not", () => {
    assert.equal(html("*a* **b** ***c*** ~~d~~"), "<p><em>a</em> <strong>b</strong> <strong><em>c</em></strong> <del>d</del></p>");
    assert.equal(html("_a_ __b__"), "<p>_a_ __b__</p>");
    assert.equal(html("**a\nb**"), "<p>**a<br>\nb**</p>");
  });
  test("code spans are not emphasized", () => {
    assert.equal(html("`*a*` and ``b`c``"), "<p><code>*a*</code> and <code>b`c</code></p>");
  });
});

describe("links", () => {
  test("Markdown links and bare URLs", () => {
    assert.equal(html("[site](https://example.com/a)"), '<p><a href="https://example.com/a">site</a></p>');
    assert.equal(html("see example.com/x."), '<p>see <a href="http://example.com/x">example.com/x</a>.</p>');
    assert.equal(html("mail a@b.org"), '<p>mail <a href="mailto:a@b.org">a@b.org</a></p>');
  });
  test("links to the organization become relative; dangerous schemes stay text", () => {
    assert.equal(html("[x](https://chat.example.com/#narrow/channel/1-Denmark)"), '<p><a href="#narrow/channel/1-Denmark">x</a></p>');
    assert.equal(html("[x](javascript:alert(1))"), "<p>[x](javascript:alert(1))</p>");
  });
});

describe("lists and quotes", () => {
  test("bullets and numbers, nested by two spaces", () => {
    assert.equal(html("* a\n  * b\n* c"), "<ul>\n<li>a<ul>\n<li>b</li>\n</ul>\n</li>\n<li>c</li>\n</ul>");
    assert.equal(html("3. a\n4. b"), '<ol start="3">\n<li>a</li>\n<li>b</li>\n</ol>');
  });
  test("a list right after a line of text is still a list", () => {
    assert.equal(html("Items:\n- a\n- b"), "<p>Items:</p>\n<ul>\n<li>a</li>\n<li>b</li>\n</ul>");
  });
  test("quotes with > and with a quote fence", () => {
    assert.equal(html("> hi"), "<blockquote>\n<p>hi</p>\n</blockquote>");
    assert.equal(html("```quote\nhi\n```"), "<blockquote>\n<p>hi</p>\n</blockquote>");
  });
  test("mentions inside a quote are silent", () => {
    assert.equal(
      renderMarkdown("> @**King Hamlet**", ctx).html,
      '<blockquote>\n<p><span class="user-mention silent" data-user-id="10">King Hamlet</span></p>\n</blockquote>',
    );
    assert.deepEqual(renderMarkdown("> @**King Hamlet**", ctx).mentionedUserIds, []);
  });
});

describe("code blocks", () => {
  test("a fence with a language names the language as Pygments does", () => {
    assert.equal(
      html("```js\nlet a = '<b>';\n```"),
      '<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code>let a = \'&lt;b&gt;\';\n</code></pre></div>',
    );
    assert.equal(
      html("```unknownlang\nx\n```"),
      '<div class="codehilite" data-code-language="unknownlang"><pre><span></span><code>x\n</code></pre></div>',
    );
  });
  test("a fence without language and an indented block", () => {
    assert.equal(html('~~~\n"q"\n~~~'), '<div class="codehilite"><pre><span></span><code>&quot;q&quot;\n</code></pre></div>');
    assert.equal(html("    x < y"), '<div class="codehilite"><pre><span></span><code>x &lt; y\n</code></pre></div>');
  });
});

describe("user mentions", () => {
  test("by name, by name and id, by id only", () => {
    const r = renderMarkdown("@**king hamlet** @**Othello|11** @**|10**", ctx);
    assert.equal(
      r.html,
      '<p><span class="user-mention" data-user-id="10">@King Hamlet</span> ' +
        '<span class="user-mention" data-user-id="11">@Othello</span> ' +
        '<span class="user-mention" data-user-id="10">@King Hamlet</span></p>',
    );
    assert.deepEqual(r.mentionedUserIds, [10, 11]);
  });
  test("a name that does not match the id, or an unknown name, is no mention (only bold text)", () => {
    const r = renderMarkdown("@**Othello|10** @**Nobody**", ctx);
    assert.equal(r.html, "<p>@<strong>Othello|10</strong> @<strong>Nobody</strong></p>");
    assert.deepEqual(r.mentionedUserIds, []);
  });
  test("silent mentions and mentions of deactivated users do not notify", () => {
    const r = renderMarkdown("@_**Othello** @**Ghost**", ctx);
    assert.equal(
      r.html,
      '<p><span class="user-mention silent" data-user-id="11">Othello</span> <span class="user-mention silent" data-user-id="12">Ghost</span></p>',
    );
    assert.deepEqual(r.mentionedUserIds, []);
  });
  test("two users with the same name are told apart by id", () => {
    assert.equal(html("@**Mark Twin|13**"), '<p><span class="user-mention" data-user-id="13">@Mark Twin</span></p>');
  });
  test("a mention must start after whitespace or an opening character", () => {
    assert.equal(html("x@**Othello**"), "<p>x@<strong>Othello</strong></p>");
  });
});

describe("wildcard and group mentions", () => {
  test("channel and topic wildcards set their flags unless silent", () => {
    const r = renderMarkdown("@**all** @**topic**", ctx);
    assert.equal(
      r.html,
      '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> <span class="topic-mention">@topic</span></p>',
    );
    assert.equal(r.wildcardMentioned, true);
    assert.equal(r.topicWildcardMentioned, true);
    const silent = renderMarkdown("@_**everyone**", ctx);
    assert.equal(silent.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">everyone</span></p>');
    assert.equal(silent.wildcardMentioned, false);
  });
  test("group mentions; a deactivated group is rendered silent and not mentioned", () => {
    const r = renderMarkdown("@*HamletCharacters* @*retired* @_*hamletcharacters*", ctx);
    assert.equal(
      r.html,
      '<p><span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span> ' +
        '<span class="user-group-mention silent" data-user-group-id="21">retired</span> ' +
        '<span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span></p>',
    );
    assert.deepEqual(r.mentionedGroupIds, [20]);
  });
  test("system groups show their display name", () => {
    assert.equal(html("@*role:administrators*"), '<p><span class="user-group-mention" data-user-group-id="22">@Administrators</span></p>');
  });
});

describe("channel, topic and message links", () => {
  test("channel and topic links", () => {
    assert.equal(
      html("#**Denmark** #**social life>party time**"),
      '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a> ' +
        '<a class="stream-topic" data-stream-id="2" href="/#narrow/channel/2-social-life/topic/party.20time">#social life &gt; party time</a></p>',
    );
    assert.equal(html("#**Nowhere**"), "<p>#<strong>Nowhere</strong></p>");
  });
  test("a topic link points at the latest message when known; the empty topic has a display name", () => {
    const c: RenderContext = { ...ctx, topicLatestMessageId: () => 99, emptyTopicDisplayName: "general chat" };
    assert.equal(
      html("#**Denmark>**", c),
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Denmark/topic//with/99">#Denmark &gt; <em>general chat</em></a></p>',
    );
  });
  test("message links", () => {
    assert.equal(
      html("#**Denmark>castle@42**"),
      '<p><a class="message-link" href="/#narrow/channel/1-Denmark/topic/castle/near/42">#Denmark &gt; castle @ 💬</a></p>',
    );
  });
});

describe("emoji", () => {
  test("names, Unicode, custom and :zulip:", () => {
    assert.equal(
      html(":smile: 🐙 :burrito: :zulip: :not_an_emoji:"),
      '<p><span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span> ' +
        '<span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span> ' +
        '<img alt=":burrito:" class="emoji" src="/user_avatars/2/emoji/images/burrito.png" title="burrito"> ' +
        '<img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"> :not_an_emoji:</p>',
    );
  });
  test("emoticons only for senders who turned translation on", () => {
    assert.equal(html(":)"), "<p>:)</p>");
    assert.match(html(":)", { ...ctx, translateEmoticons: true }), /emoji-1f642/);
  });
});

describe("spoilers, math, time, tables", () => {
  test("spoiler with header", () => {
    assert.equal(
      html("```spoiler Plot\nHe dies.\n```"),
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>Plot</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>He dies.</p>\n</div></div>',
    );
  });
  test("inline and display math, and errors", () => {
    assert.match(html("$$x^2$$"), /^<p><span class="katex">/);
    assert.match(html("```math\nx^2\n```"), /^<p><span class="katex-display">/);
    assert.equal(html("$$\\nope{$$"), '<p><span class="tex-error">$$\\nope{$$</span></p>');
    assert.equal(html("costs $5 or $10"), "<p>costs $5 or $10</p>");
  });
  test("<time:…> is normalized to UTC; invalid times stay text", () => {
    assert.equal(html("<time:2024-01-01T10:00:00+05:00>"), '<p><time datetime="2024-01-01T05:00:00Z">2024-01-01T10:00:00+05:00</time></p>');
    assert.equal(html("<time:1700000000>"), '<p><time datetime="2023-11-14T22:13:20Z">1700000000</time></p>');
    assert.equal(html("<time:soon>"), "<p>&lt;time:soon&gt;</p>");
  });
  test("tables", () => {
    assert.equal(
      html("a | b\n--- | :-:\n1 | 2"),
      '<table>\n<thead>\n<tr>\n<th>a</th>\n<th style="text-align: center;">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td style="text-align: center;">2</td>\n</tr>\n</tbody>\n</table>',
    );
  });
});

describe("safety", () => {
  test("HTML in the input is escaped everywhere", () => {
    assert.equal(html('<img src=x onerror="alert(1)">'), "<p>&lt;img src=x onerror=\"alert(1)\"&gt;</p>");
    assert.equal(html("[<b>x</b>](https://a.com/a\"onmouseover=alert)"), '<p><a href="https://a.com/a&quot;onmouseover=alert">&lt;b&gt;x&lt;/b&gt;</a></p>');
    assert.equal(html("```spoiler <i>h</i>\n<b>\n```"), '<div class="spoiler-block"><div class="spoiler-header">\n<p>&lt;i&gt;h&lt;/i&gt;</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>&lt;b&gt;</p>\n</div></div>');
  });
  test("only well-formed entities pass through", () => {
    assert.equal(html("&amp; &copy; &#60; &bogus"), "<p>&amp; &copy; &#60; &amp;bogus</p>");
  });
});

describe("inline previews", () => {
  const camo = { url: "https://camo.example/", key: "k" };
  test("an image link alone in a paragraph becomes a preview through the camo proxy", () => {
    const out = html("https://img.example/cat.png", { ...ctx, camo });
    assert.match(out, /^<div class="message_inline_image"><a href="https:\/\/img\.example\/cat\.png"><img loading="lazy" src="https:\/\/camo\.example\/[0-9a-f]{40}\/[0-9a-f]+"><\/a><\/div>$/);
  });
  test("no preview when previews are off or inside a quote", () => {
    assert.equal(
      html("https://img.example/cat.png", { ...ctx, inlineImagePreview: false }),
      '<p><a href="https://img.example/cat.png">https://img.example/cat.png</a></p>',
    );
    assert.doesNotMatch(html("> https://img.example/cat.png"), /message_inline_image/);
  });
  test("flags for links and images", () => {
    assert.deepEqual(
      [renderMarkdown("https://a.com", ctx).hasLink, renderMarkdown("https://a.com/x.png", ctx).hasImage, renderMarkdown("x", ctx).hasLink],
      [true, true, false],
    );
  });
});

describe("callers without a context", () => {
  test("render plain Markdown; mentions stay text", () => {
    const r = renderMarkdown("**hi** @**King Hamlet**");
    assert.equal(r.html, "<p><strong>hi</strong> @<strong>King Hamlet</strong></p>");
    assert.deepEqual(r.mentionedUserIds, []);
    assert.equal(r.wildcardMentioned, false);
  });
});

describe("syntax highlighting", () => {
  test("Python, with Pygments' token classes", () => {
    assert.equal(
      html("```py\nimport os\nclass A:\n    def f(self, x=1.5):  # hi\n        return print('a' if x else None)\n```"),
      '<div class="codehilite" data-code-language="Python"><pre><span></span><code>' +
        '<span class="kn">import</span><span class="w"> </span><span class="nn">os</span>\n' +
        '<span class="k">class</span><span class="w"> </span><span class="nc">A</span><span class="p">:</span>\n' +
        '    <span class="k">def</span><span class="w"> </span><span class="nf">f</span><span class="p">(</span><span class="bp">self</span><span class="p">,</span> ' +
        '<span class="n">x</span><span class="o">=</span><span class="mf">1.5</span><span class="p">):</span>  <span class="c1"># hi</span>\n' +
        '        <span class="k">return</span> <span class="nb">print</span><span class="p">(</span><span class="s1">\'a\'</span> <span class="k">if</span> ' +
        '<span class="n">x</span> <span class="k">else</span> <span class="kc">None</span><span class="p">)</span>\n</code></pre></div>',
    );
  });
  test("a shebang line picks the language of a fence without one", () => {
    assert.equal(
      html("```\n#!python\nx\n```"),
      '<div class="codehilite"><pre><span></span><code><span class="ch">#!python</span>\n<span class="n">x</span>\n</code></pre></div>',
    );
  });
});

describe("bounds", () => {
  const refuses = (content: string) => assert.throws(() => renderMarkdown(content), /Unable to render message/);

  test("quote and spoiler fences nest at most a hundred deep", () => {
    // Blocks nest 100 deep counting the document itself, so the innermost quote stays text.
    const html = renderMarkdown("```quote\n".repeat(100) + "x").html;
    assert.equal(html.split("<blockquote>").length - 1, 99);
    assert.match(html, /<p>&gt; x<br>/);
    refuses("```quote\n".repeat(101) + "x");
    refuses("~~~spoiler s\n".repeat(101) + "x");
  });

  test("runs of brackets, emoji and links render as Zulip renders them", () => {
    assert.equal(renderMarkdown("[".repeat(5000)).html, `<p>${"[".repeat(5000)}</p>`);
    assert.equal(renderMarkdown("[[[a](https://x.com)").html, '<p>[[<a href="https://x.com">a</a></p>');
    const smiles = renderMarkdown(":smile:".repeat(500) + ":not_an_emoji:smile:").html;
    // The unknown name takes its closing colon, so the last "smile:" is no emoji.
    assert.equal(smiles.split('class="emoji emoji-1f604"').length - 1, 500);
    assert.ok(smiles.endsWith("</span>:not_an_emoji:smile:</p>"));
  });
});
