/**
 * Buildbot: builds started and finished, in the project's topic. The event filtered on is
 * `new` or `finished`.
 */
import { at, display, payloadObject } from "./format.js";
import { truthy } from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

/** Buildbot's result codes, in order. */
const RESULTS = ["success", "warnings", "failure", "skipped", "exception", "retry", "cancelled"];

export const buildbot: Integration = {
  name: "buildbot",
  displayName: "Buildbot",
  handle(request) {
    const payload = payloadObject(request.json);
    const project = at(payload, "project");
    const topic = truthy(project) ? display(project) : "general";
    const event = display(at(payload, "event"));
    const build = `Build [#${display(at(payload, "buildid"))}](${display(at(payload, "url"))})`;
    const name = display(at(payload, "buildername"));
    let content: string;
    if (event === "new") {
      content = `${build} for **${name}** started.`;
    } else if (event === "finished") {
      const result = at(payload, "results");
      const status = typeof result === "number" ? RESULTS.at(result) : undefined;
      content = `${build} (result: ${status ?? display(result)}) for **${name}** finished.`;
    } else {
      throw new UnsupportedEvent(event);
    }
    return { event, messages: [{ topic, content }] };
  },
};
