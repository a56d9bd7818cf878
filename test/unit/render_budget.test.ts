import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { checkRenderDeadline, outsideRenderDeadline, withRenderDeadline } from "../../src/markdown/budget.js";

describe("the render deadline", () => {
  test("refuses a rendering once a second has gone by", (t) => {
    t.mock.timers.enable({ apis: ["Date"] });
    withRenderDeadline(() => {
      t.mock.timers.tick(1_000);
      checkRenderDeadline();
      t.mock.timers.tick(1);
      assert.throws(() => checkRenderDeadline(), /Unable to render message/);
    });
    checkRenderDeadline();
  });

  test("does not count time spent outside the message's work, such as loading a module", (t) => {
    t.mock.timers.enable({ apis: ["Date"] });
    withRenderDeadline(() => {
      t.mock.timers.tick(400);
      assert.equal(outsideRenderDeadline(() => (t.mock.timers.tick(5_000), "loaded")), "loaded");
      t.mock.timers.tick(600);
      checkRenderDeadline();
      t.mock.timers.tick(1);
      assert.throws(() => checkRenderDeadline(), /Unable to render message/);
    });
  });
});
