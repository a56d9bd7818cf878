/**
 * CircleCI: workflow and job completions of pipelines on GitHub, Bitbucket and GitLab projects,
 * and the webhook's test ping. The event filtered on is the payload's type.
 */
import { display, has, payloadObject } from "./format.js";
import { field, int, optStr, shortSha, str } from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration } from "./types.js";

const STATUS: Record<string, string> = {
  success: "has succeeded",
  failed: "has failed",
  canceled: "was canceled",
  unauthorized: "was unauthorized",
  error: "had an error",
};

function commitDetails(pipeline: unknown): string {
  let details: string;
  let link: string;
  let author: string;
  let branch: string | null;
  if (has(pipeline, "vcs")) {
    const vcs = field(pipeline, "vcs");
    const revision = str(vcs, "revision");
    const sha = shortSha(revision);
    const repoUrl = str(vcs, "target_repository_url");
    link = field(vcs, "provider_name") === "github" ? `${repoUrl}/commit/${revision}` : `${repoUrl}/commits/${revision}`;
    branch = optStr(vcs, "branch");
    const subject = optStr(vcs, "commit", "subject");
    // A pipeline started by hand has no commit subject: a branch's HEAD, or with no branch the latest tag.
    if (!subject) {
      return branch
        ? `Triggered on \`${branch}\`'s HEAD on [${sha}](${link}).`
        : `Triggered on the latest tag on [${sha}](${link}).`;
    }
    details = `${sha}: ${subject}`;
    author = str(vcs, "commit", "author", "name");
  } else {
    const gitlab = field(pipeline, "trigger_parameters", "gitlab");
    const checkout = str(gitlab, "checkout_sha");
    details = `${shortSha(checkout)}: ${str(gitlab, "commit_title")}`;
    author = str(gitlab, "commit_author_name");
    link = `${str(gitlab, "web_url")}/-/commit/${checkout}`;
    branch = str(gitlab, "branch");
  }
  return `Triggered on [\`${details}\`](${link}) on branch \`${display(branch)}\` by ${author}.`;
}

export const circleci: Integration = {
  name: "circleci",
  displayName: "CircleCI",
  handle(request) {
    const payload = payloadObject(request.json);
    const type = str(payload, "type");
    if (type === "ping") {
      return { event: type, messages: [{ topic: "Test event", content: `Webhook '${str(payload, "webhook", "name")}' test event successful.` }] };
    }
    if (type !== "job-completed" && type !== "workflow-completed") throw new UnsupportedEvent(type);
    const pipeline = field(payload, "pipeline");
    // Zulip takes commit details only from GitHub, Bitbucket and GitLab pipelines.
    if (has(pipeline, "trigger_parameters") && field(pipeline, "trigger", "type") !== "gitlab") throw new AnomalousPayload();
    const number = int(pipeline, "number");
    const details = commitDetails(pipeline);
    const status = (kind: string) => display(STATUS[str(payload, kind, "status")] ?? null);
    const content =
      type === "job-completed"
        ? `Job \`${str(payload, "job", "name")}\` within Pipeline #${number} ${status("job")}.\n\n${details}`
        : `Workflow [\`${str(payload, "workflow", "name")}\`](${str(payload, "workflow", "url")}) within Pipeline #${number} ${status("workflow")}.\n\n${details}`;
    return { event: type, messages: [{ topic: str(payload, "project", "name"), content }] };
  },
};
