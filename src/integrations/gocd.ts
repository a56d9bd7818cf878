/** GoCD stage notifications: a stage building, then passed or failed with its jobs by result, one topic per pipeline stage. */
import { field, list, shortSha, str } from "./git.js";
import type { Integration } from "./types.js";

function commit(pipeline: unknown): string {
  const cause = list(pipeline, "build-cause")[0];
  const git = field(cause, "material", "git-configuration");
  const sha = shortSha(str(list(cause, "modifications")[0], "revision"));
  return `[\`${sha}\`](${str(git, "url")}/commit/${sha}) on branch \`${str(git, "branch")}\``;
}

/** `- **Failed**: `a`, `b`` per job result, in the order the results first appear. */
function jobs(stage: unknown): string {
  const byResult = new Map<string, string[]>();
  for (const job of list(stage, "jobs")) {
    const result = str(job, "result");
    byResult.set(result, [...(byResult.get(result) ?? []), `\`${str(job, "name")}\``]);
  }
  return [...byResult].map(([result, names]) => `\n- **${result}**: ${names.join(", ")}`).join("");
}

export const gocd: Integration = {
  name: "gocd",
  displayName: "Gocd",
  handle(request) {
    const p = request.json;
    // Only stage notifications are reported.
    if (str(p, "type") !== "stage") return { messages: [] };
    const pipeline = field(p, "data", "pipeline");
    const stage = field(pipeline, "stage");
    const title = `${str(pipeline, "name")} / ${str(stage, "name")}`;
    const state = str(stage, "state").toLowerCase();
    const details = `- **Commit**: ${commit(pipeline)}\n- **Started**: ${str(stage, "create-time")}`;
    if (state === "building") return { messages: [{ topic: title, content: `**Pipeline ${state}**: ${title}\n${details}` }] };
    const emoji = str(stage, "result") === "Passed" ? ":green_circle:" : ":red_circle:";
    const content = `${emoji} **Build ${state}**: ${title}\n${details}\n- **Finished**: ${str(stage, "last-transition-time")}${jobs(stage)}`;
    return { messages: [{ topic: title, content }] };
  },
};
