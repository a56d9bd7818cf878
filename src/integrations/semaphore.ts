/**
 * Semaphore: Classic's build and deploy notifications and 2.0's pipeline results for pushes,
 * pull requests and tags. 2.0 payloads carry no links, so GitHub's are built from the
 * repository URL; other hosts get the same messages without links.
 */
import { display, payloadObject } from "./format.js";
import { field, int, shortSha, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

/** The first line, as Python's `splitlines()[0]` finds it. */
function summaryLine(message: string): string {
  const line = message.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/u, 1)[0];
  if (message === "" || line === undefined) throw new AnomalousPayload();
  return line;
}

function isGitHub(url: string): boolean {
  try {
    return new URL(url).hostname === "github.com";
  } catch {
    return false;
  }
}

function classic(payload: Record<string, unknown>): [string, string, string, string] {
  const branch = str(payload, "branch_name");
  const project = str(payload, "project_name");
  const result = str(payload, "result");
  const event = str(payload, "event");
  const commit =
    `* **Commit**: [${shortSha(str(payload, "commit", "id"))}: ${summaryLine(str(payload, "commit", "message"))}](${str(payload, "commit", "url")})\n` +
    `* **Author**: ${str(payload, "commit", "author_email")}`;
  let content: string;
  if (event === "build") {
    content = `[Build ${int(payload, "build_number")}](${str(payload, "build_url")}) ${result}:\n${commit}`;
  } else if (event === "deploy") {
    content =
      `[Deploy ${int(payload, "number")}](${str(payload, "html_url")}) of [build ${int(payload, "build_number")}](${str(payload, "build_html_url")}) ${result}:\n` +
      `${commit}\n* **Server**: ${str(payload, "server_name")}`;
  } else {
    content = `${event}: ${result}`;
  }
  return [content, project, branch, event];
}

function semaphore2(payload: Record<string, unknown>): [string, string, string, string] {
  const repoUrl = str(payload, "repository", "url");
  const github = isGitHub(repoUrl);
  const project = str(payload, "project", "name");
  const author = str(payload, "revision", "sender", "login");
  const authorLine = github ? `* **Author**: [${author}](https://github.com/${author})` : `* **Author**: ${author}`;
  const head =
    `[${str(payload, "pipeline", "name")}](https://${str(payload, "organization", "name")}.semaphoreci.com/workflows/${str(payload, "workflow", "id")}) ` +
    `pipeline **${str(payload, "pipeline", "result")}**`;
  const event = str(payload, "revision", "reference_type");
  if (event === "branch") {
    const sha = str(payload, "revision", "commit_sha");
    const branch = str(payload, "revision", "branch", "name");
    const message = summaryLine(str(payload, "revision", "commit_message"));
    const commit = github ? `[(${shortSha(sha)})](${repoUrl}/commit/${sha}) ${message}` : `(${shortSha(sha)}) ${message}`;
    return [`${head}:\n* **Commit**: ${commit}\n* **Branch**: ${branch}\n${authorLine}`, project, branch, event];
  }
  if (event === "pull_request") {
    const pr = field(payload, "revision", "pull_request");
    const branch = str(pr, "branch_name");
    const title = str(pr, "name");
    const number = str(pr, "number");
    const line = github ? `[${title}](${repoUrl}/pull/${number})` : `${title} (#${number})`;
    return [`${head}:\n* **Pull request**: ${line}\n* **Branch**: ${branch}\n${authorLine}`, project, branch, event];
  }
  if (event === "tag") {
    const tag = str(payload, "revision", "tag", "name");
    const line = github ? `[${tag}](${repoUrl}/tree/${tag})` : tag;
    return [`${head}:\n* **Tag**: ${line}\n${authorLine}`, project, "", event];
  }
  return [`${head} for ${display(event)} event`, project, "", event];
}

export const semaphore: Integration = {
  name: "semaphore",
  displayName: "Semaphore",
  handle(request) {
    const payload = payloadObject(request.json);
    const [content, project, branch, event] = "event" in payload ? classic(payload) : semaphore2(payload);
    return { event, messages: [{ topic: branch ? `${project}/${branch}` : project, content }] };
  },
};
