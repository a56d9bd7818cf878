/** Assertions on API responses shared by the administration tests. */
import assert from "node:assert/strict";
import type { ApiResponse } from "./client.js";
import type { EventLog } from "./events.js";

type Response = Pick<ApiResponse, "status" | "body">;

/** A Zulip error envelope with exactly this message, code and status. */
export function expectError(r: Response, msg: string, code = "BAD_REQUEST", status = 400): void {
  assert.deepEqual([r.status, r.body.result, r.body.msg, r.body.code], [status, "error", msg, code]);
}

export function expectSuccess(r: Response, why = ""): void {
  assert.equal(r.body.result, "success", `${why} ${JSON.stringify(r.body)}`);
}

/** A refused request: Zulip's error, the state `snapshot` reads left as it was, and nothing announced. */
export async function expectRefusedUnchanged(
  snapshot: () => Promise<unknown>,
  log: EventLog,
  attempt: () => Promise<Response>,
  msg: string,
  code?: string,
): Promise<void> {
  const before = await snapshot();
  log.notices.length = 0;
  expectError(await attempt(), msg, code);
  assert.deepEqual(await snapshot(), before);
  assert.equal(log.notices.length, 0, JSON.stringify(log.notices));
}
