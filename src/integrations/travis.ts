/**
 * Travis CI: a build's outcome, posted in the `builds` topic. The event filtered on is the
 * build's type (`push`, `pull_request`).
 */
import { payloadObject } from "./format.js";
import { str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

const GOOD = ["Passed", "Fixed"];
const BAD = ["Failed", "Broken", "Still Failing", "Errored", "Canceled"];
const PENDING = ["Pending"];

export const travis: Integration = {
  name: "travis",
  displayName: "Travis",
  handle(request) {
    if (request.form.payload === undefined) throw new AnomalousPayload();
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.form.payload);
    } catch {
      throw new AnomalousPayload();
    }
    const build = payloadObject(parsed);
    const status = str(build, "status_message");
    const emoji = GOOD.includes(status)
      ? ":thumbs_up:"
      : BAD.includes(status)
        ? ":thumbs_down:"
        : PENDING.includes(status)
          ? ":counterclockwise:"
          : `(No emoji specified for status '${status}'.)`;
    const content =
      `Author: ${str(build, "author_name")}\nBuild status: ${status} ${emoji}\n` +
      `Details: [changes](${str(build, "compare_url")}), [build log](${str(build, "build_url")})`;
    return { event: str(build, "type"), messages: [{ topic: "builds", content }] };
  },
};
