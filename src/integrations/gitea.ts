/**
 * Gitea (`/api/v1/external/gitea`), event named by `X-Gitea-Event`: Gogs' events and wording,
 * except pull requests, whose branches and assignee Gitea sends in its own shape.
 */
import { bool, field, int, pullRequestMessage, str, truthy } from "./git.js";
import { gogsFamily } from "./gogs.js";

function giteaPullRequestBody(payload: unknown, withTitle: boolean): string {
  const pr = field(payload, "pull_request");
  const merged = bool(pr, "merged");
  const action = merged ? "merged" : str(payload, "action");
  const assignee = truthy(field(pr, "assignee")) ? str(pr, "assignee", "login") : null;
  const branches = action !== "edited";
  return pullRequestMessage({
    userName: merged ? str(pr, "merged_by", "username") : str(pr, "user", "username"),
    action,
    url: str(pr, "html_url"),
    number: int(pr, "number"),
    targetBranch: branches && field(pr, "head") !== undefined ? str(pr, "head", "ref") : null,
    baseBranch: branches && field(pr, "base") !== undefined ? str(pr, "base", "ref") : null,
    assignee,
    assigneeUpdated: action === "assigned" ? assignee : null,
    title: withTitle ? str(pr, "title") : null,
  });
}

export const gitea = gogsFamily("gitea", "Gitea", "X-Gitea-Event", giteaPullRequestBody);
