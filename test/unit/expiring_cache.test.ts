import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { ExpiringCache } from "../../src/store/expiring_cache.js";

const outside = { isTransaction: false };
const inTransaction = { isTransaction: true };

function fakeClock(start = 1000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

describe("ExpiringCache", () => {
  test("keeps a value for its lifetime, then computes it again", async () => {
    const clock = fakeClock();
    const cache = new ExpiringCache<number>(clock, 60, 10);
    let computed = 0;
    const compute = async () => ++computed;
    assert.equal(await cache.get("k", outside, compute), 1);
    clock.t += 59;
    assert.equal(await cache.get("k", outside, compute), 1);
    clock.t += 1;
    assert.equal(await cache.get("k", outside, compute), 2);
    assert.equal(await cache.get("other", outside, compute), 3, "keys are apart");
  });

  test("a clock moved back does not keep an entry from the future", async () => {
    const clock = fakeClock();
    const cache = new ExpiringCache<number>(clock, 60, 10);
    let computed = 0;
    const compute = async () => ++computed;
    await cache.get("k", outside, compute);
    clock.t -= 10;
    assert.equal(await cache.get("k", outside, compute), 2);
  });

  test("callers during a computation share it", async () => {
    const cache = new ExpiringCache<number>(fakeClock(), 60, 10);
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = async () => {
      computed++;
      await gate;
      return computed;
    };
    const both = Promise.all([cache.get("k", outside, slow), cache.get("k", outside, slow)]);
    release();
    assert.deepEqual(await both, [1, 1]);
    assert.equal(computed, 1);
  });

  test("a transaction takes a finished value, but never waits for a computation outside it", async () => {
    const cache = new ExpiringCache<number>(fakeClock(), 60, 10);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const outsideValue = cache.get("k", outside, async () => {
      await gate;
      return 1;
    });
    assert.equal(await cache.get("k", inTransaction, async () => 2), 2, "its own, while the other is under way");
    release();
    assert.equal(await outsideValue, 1);
    assert.equal(await cache.get("k", inTransaction, async () => 3), 1);
    assert.equal(await cache.get("k", outside, async () => 4), 1, "what a transaction computed was not kept");
  });

  test("a failed computation is not kept", async () => {
    const cache = new ExpiringCache<number>(fakeClock(), 60, 10);
    await assert.rejects(cache.get("k", outside, async () => Promise.reject(new Error("database gone"))));
    assert.equal(await cache.get("k", outside, async () => 7), 7);
  });

  test("bounded: the oldest entry goes first", async () => {
    const cache = new ExpiringCache<string>(fakeClock(), 60, 2);
    const computed: string[] = [];
    const get = (key: string) =>
      cache.get(key, outside, async () => {
        computed.push(key);
        return key;
      });
    await get("a");
    await get("b");
    await get("c");
    await get("b");
    await get("a");
    assert.deepEqual(computed, ["a", "b", "c", "a"]);
  });
});
