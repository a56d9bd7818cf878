import { test } from "node:test";
import assert from "node:assert/strict";
import {
  channelTopicsPolicyName,
  confabFlagsToZulip,
  confabRole,
  idOffset,
  rewriteRenderedIds,
  seconds,
  versionRefusal,
  zulipFlagsToConfab,
} from "../../src/importers/zulip/format.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

test("flag bits: Zulip's ALL_FLAGS order onto Confab's, and back", () => {
  assert.equal(zulipFlagsToConfab(1 | 2), FLAG_BITS.read | FLAG_BITS.starred);
  assert.equal(zulipFlagsToConfab(8 | 16 | 32 | 64), FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.group_mentioned);
  assert.equal(zulipFlagsToConfab(512), FLAG_BITS.has_alert_word);
  assert.equal(zulipFlagsToConfab(1024), FLAG_BITS.historical);
  assert.equal(zulipFlagsToConfab(2048), FLAG_BITS.is_private);
  assert.equal(zulipFlagsToConfab(4096), FLAG_BITS.active_mobile_push_notification);
  // force_expand and force_collapse are obsolete and dropped.
  assert.equal(zulipFlagsToConfab(128 | 256), 0);
  for (let mask = 0; mask < 8192; mask++) {
    const kept = mask & ~(128 | 256);
    assert.equal(confabFlagsToZulip(zulipFlagsToConfab(mask)), kept);
  }
});

test("versions: 8.x to 12.x are read, others refused with the version named", () => {
  for (const v of ["8.0", "9.4", "10.2", "11.0-dev+git", "12.0-beta1"]) assert.equal(versionRefusal(v), null, v);
  assert.match(versionRefusal("4.11")!, /from Zulip 4\.11;/);
  assert.match(versionRefusal("13.0")!, /from Zulip 13\.0;/);
  assert.match(versionRefusal(undefined)!, /names no Zulip version/);
  assert.match(versionRefusal("main")!, /from Zulip main;/);
});

test("float datetimes become whole seconds; anything else is null", () => {
  assert.equal(seconds(1738573200.987654), 1738573200);
  assert.equal(seconds(null), null);
  assert.equal(seconds("1738573200"), null);
  assert.equal(seconds(Number.NaN), null);
});

test("rendered ids are rewritten through the maps; unknown ids stay", () => {
  const html =
    '<p><span class="user-mention" data-user-id="12">@A</span> <span class="user-mention" data-user-id="*">@all</span> ' +
    '<span class="user-group-mention" data-user-group-id="20">@g</span> ' +
    '<a class="stream" data-stream-id="7" href="/#narrow/channel/7-Denmark">#Denmark</a> ' +
    '<a class="stream-topic" data-stream-id="9" href="/#narrow/stream/9-x/topic/y">#x</a> data-user-id="99"</p>';
  const out = rewriteRenderedIds(html, {
    user: (id) => ({ 12: 112 })[id],
    stream: (id) => ({ 7: 107 })[id],
    group: (id) => ({ 20: 120 })[id],
  });
  assert.equal(
    out,
    '<p><span class="user-mention" data-user-id="112">@A</span> <span class="user-mention" data-user-id="*">@all</span> ' +
      '<span class="user-group-mention" data-user-group-id="120">@g</span> ' +
      '<a class="stream" data-stream-id="107" href="/#narrow/channel/107-Denmark">#Denmark</a> ' +
      '<a class="stream-topic" data-stream-id="9" href="/#narrow/stream/9-x/topic/y">#x</a> data-user-id="99"</p>',
  );
  assert.equal(rewriteRenderedIds("<p>plain</p>", { user: () => 1, stream: () => 1, group: () => 1 }), "<p>plain</p>");
});

test("ids are kept unless the target already reaches them", () => {
  assert.equal(idOffset(10, 0), 0);
  assert.equal(idOffset(10, 9), 0);
  assert.equal(idOffset(10, 10), 1);
  assert.equal(idOffset(1, 500), 500);
});

test("roles and channel topic policies", () => {
  for (const r of [100, 200, 300, 400, 600]) assert.equal(confabRole(r), r);
  assert.equal(confabRole(500), 400);
  assert.equal(channelTopicsPolicyName(1), "inherit");
  assert.equal(channelTopicsPolicyName(4), "empty_topic_only");
  assert.equal(channelTopicsPolicyName(undefined), "inherit");
});
