/**
 * Gogs (`/api/v1/external/gogs`), event named by `X-Gogs-Event`. Gitea, a fork of Gogs, sends
 * the same events and is read by the same code except for pull requests (see gitea.ts).
 */
import {
  branchNotifiable,
  branchTopic,
  createBranchMessage,
  eventHeader,
  field,
  int,
  issueMessage,
  list,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  releaseMessage,
  releaseTopic,
  str,
  truthy,
  bool,
  type Commit,
} from "./git.js";
import { UnsupportedEvent, type Integration, type WebhookOutcome, type WebhookRequest } from "./types.js";

/** The body of a pull request event; `withTitle` when a custom topic no longer carries the title. */
export type PullRequestBody = (payload: unknown, withTitle: boolean) => string;

function issueUrl(payload: unknown, n: number): string {
  return `${str(payload, "repository", "html_url")}/issues/${n}`;
}

function pushBody(payload: unknown): string {
  const commits: Commit[] = list(payload, "commits").map((c) => ({
    name: str(c, "author", "username") || (str(c, "author", "name").trim().split(/\s+/)[0] ?? ""),
    sha: str(c, "id"),
    url: str(c, "url"),
    message: str(c, "message"),
  }));
  return pushCommitsMessage({
    userName: str(payload, "sender", "username"),
    compareUrl: str(payload, "compare_url"),
    branch: str(payload, "ref").replace("refs/heads/", ""),
    commits,
  });
}

function gogsPullRequestBody(payload: unknown, withTitle: boolean): string {
  const pr = field(payload, "pull_request");
  const merged = bool(pr, "merged");
  const action = merged ? "merged" : str(payload, "action");
  const assignee = truthy(field(pr, "assignee")) ? str(pr, "assignee", "username") : null;
  return pullRequestMessage({
    userName: merged ? str(pr, "merged_by", "username") : str(pr, "user", "username"),
    action,
    url: str(pr, "html_url"),
    number: int(pr, "number"),
    targetBranch: action === "edited" ? null : str(pr, "head_branch"),
    baseBranch: action === "edited" ? null : str(pr, "base_branch"),
    assigneeUpdated: action === "assigned" ? assignee : null,
    title: withTitle ? str(pr, "title") : null,
  });
}

function issuesBody(payload: unknown, withTitle: boolean): string {
  const n = int(payload, "issue", "number");
  const assignee = truthy(field(payload, "issue", "assignee")) ? str(payload, "issue", "assignee", "login") : null;
  return issueMessage({
    userName: str(payload, "sender", "login"),
    action: str(payload, "action"),
    url: issueUrl(payload, n),
    number: n,
    message: str(payload, "issue", "body"),
    assignee,
    assigneeUpdated: assignee,
    title: withTitle ? str(payload, "issue", "title") : null,
  });
}

function issueCommentBody(payload: unknown, withTitle: boolean): string {
  const action = str(payload, "action");
  const link = `(${str(payload, "comment", "html_url")}) on`;
  const n = int(payload, "issue", "number");
  return issueMessage({
    userName: str(payload, "sender", "login"),
    action: action === "created" ? `[commented]${link}` : `${action} a [comment]${link}`,
    url: issueUrl(payload, n),
    number: n,
    message: str(payload, "comment", "body"),
    title: withTitle ? str(payload, "issue", "title") : null,
  });
}

function releaseBody(payload: unknown): string {
  return releaseMessage(
    str(payload, "release", "author", "username"),
    str(payload, "action"),
    str(payload, "release", "tag_name"),
    str(payload, "release", "name"),
    str(payload, "repository", "html_url"),
  );
}

/** The Gogs family's handler, parameterized by the service's name, header and pull request wording. */
export function gogsFamily(name: string, displayName: string, header: string, pullRequestBody: PullRequestBody): Integration {
  return {
    name,
    displayName,
    handle(request: WebhookRequest): WebhookOutcome {
      const payload = request.json;
      const repo = str(payload, "repository", "name");
      const event = eventHeader(request.headers, header);
      const withTitle = request.params.topic !== undefined;
      const message = (topic: string, content: string): WebhookOutcome => ({ event, messages: [{ topic, content }] });
      switch (event) {
        case "push": {
          const branch = str(payload, "ref").replace("refs/heads/", "");
          if (!branchNotifiable(branch, request.params.branches)) return { event, messages: [] };
          return message(branchTopic(repo, branch), pushBody(payload));
        }
        case "create": {
          const branch = str(payload, "ref");
          const url = `${str(payload, "repository", "html_url")}/src/${branch}`;
          return message(branchTopic(repo, branch), createBranchMessage(str(payload, "sender", "username"), url, branch));
        }
        case "pull_request":
          return message(
            pullRequestOrIssueTopic(repo, "PR", int(payload, "pull_request", "id"), str(payload, "pull_request", "title")),
            pullRequestBody(payload, withTitle),
          );
        case "issues":
          return message(pullRequestOrIssueTopic(repo, "issue", int(payload, "issue", "number"), str(payload, "issue", "title")), issuesBody(payload, withTitle));
        case "issue_comment":
          return message(
            pullRequestOrIssueTopic(repo, "issue", int(payload, "issue", "number"), str(payload, "issue", "title")),
            issueCommentBody(payload, withTitle),
          );
        case "release": {
          const topic = releaseTopic(repo, str(payload, "release", "tag_name"), str(payload, "release", "name"));
          return message(topic, releaseBody(payload));
        }
        default:
          throw new UnsupportedEvent(event);
      }
    },
  };
}

export const gogs = gogsFamily("gogs", "Gogs", "X-Gogs-Event", gogsPullRequestBody);
