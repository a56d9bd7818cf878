/** Rundeck job notifications: started, running long, succeeded or failed, one topic per job. */
import { field, int, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

function outcome(p: unknown, status: string): string {
  switch (status) {
    case "failed":
      return "has failed. :cross_mark:";
    case "succeeded":
      return "has succeeded. :check:";
    case "running":
      return str(p, "trigger") === "avgduration" ? "is running long. :time_ticking:" : "has started. :running:";
    case "scheduled":
      return "has started. :running:";
    default:
      throw new AnomalousPayload();
  }
}

export const rundeck: Integration = {
  name: "rundeck",
  displayName: "Rundeck",
  handle(request) {
    const p = request.json;
    const execution = field(p, "execution");
    const job = str(execution, "job", "name");
    const content =
      `[${job}](${str(execution, "job", "permalink")}) execution [#${int(execution, "id")}](${str(execution, "href")}) ` +
      `for ${str(execution, "project")} ${outcome(p, str(execution, "status"))}`;
    return { messages: [{ topic: job, content }] };
  },
};
