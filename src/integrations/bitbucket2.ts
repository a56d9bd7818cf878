/**
 * Bitbucket Cloud: most events are recognized from the payload's shape; only pull request
 * events and `repo:updated` need the `X-Event-Key` header. One push may change several refs,
 * and each changed ref is its own message.
 */
import {
  branchNotifiable,
  branchTopic,
  commitCommentMessage,
  eventHeader,
  field,
  forcePushMessage,
  int,
  issueMessage,
  list,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  shortSha,
  str,
  truthy,
} from "./git.js";
import { UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

type Payload = unknown;
type Body = (p: Payload, title: boolean) => string;

const PULL_REQUEST_ACTIONS = new Set([
  "approved",
  "unapproved",
  "created",
  "updated",
  "rejected",
  "fulfilled",
  "comment_created",
  "comment_updated",
  "comment_deleted",
]);

const has = (value: unknown, key: string) => field(value, key) !== undefined;

/** A setting's value as Python's `str()` shows it in the message. */
function display(value: unknown): string {
  if (value === true) return "True";
  if (value === false) return "False";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Since GDPR Bitbucket sends a display name or a nickname instead of a username. */
function userInfo(user: unknown): string {
  if (has(user, "display_name")) return str(user, "display_name");
  if (has(user, "nickname")) return str(user, "nickname");
  return "Unknown user";
}

const actor = (p: Payload) => userInfo(field(p, "actor"));
const repoName = (p: Payload) => str(p, "repository", "name");
const htmlUrl = (value: unknown, ...path: string[]) => str(value, ...path, "links", "html", "href");
const titleIf = (title: boolean, value: unknown, ...path: string[]) => (title ? str(value, ...path) : null);

function eventOf(p: Payload, headers: Record<string, string>): string {
  if (has(p, "push")) return "push";
  if (has(p, "fork")) return "fork";
  if (has(p, "comment") && has(p, "commit")) return "commit_comment";
  if (has(p, "commit_status")) return "change_commit_status";
  if (has(p, "issue")) {
    if (has(p, "changes")) return "issue_updated";
    if (has(p, "comment")) return "issue_commented";
    return "issue_created";
  }
  const key = eventHeader(headers, "X-Event-Key");
  if (has(p, "pullrequest")) {
    const action = key.startsWith("pullrequest:") ? key.slice("pullrequest:".length) : undefined;
    if (action !== undefined && PULL_REQUEST_ACTIONS.has(action)) return `pull_request_${action}`;
  } else if (key === "repo:updated") {
    return key;
  }
  throw new UnsupportedEvent(key);
}

/** A changed ref is a tag or a branch; a deleted one has only its old side. */
function refOf(change: unknown): unknown {
  return truthy(field(change, "new")) ? field(change, "new") : field(change, "old");
}

function commitAuthor(commit: unknown): string {
  if (has(field(commit, "author"), "user")) return userInfo(field(commit, "author", "user"));
  return str(commit, "author", "raw").trim().split(/\s+/)[0] ?? "";
}

function pushMessage(p: Payload, change: unknown): WebhookMessage {
  const ref = refOf(change);
  if (str(ref, "type") === "tag") {
    const removed = !truthy(field(change, "new"));
    return { topic: repoName(p), content: pushTagMessage(actor(p), str(ref, "name"), htmlUrl(ref), removed ? "removed" : "pushed") };
  }
  const topic = branchTopic(repoName(p), str(ref, "name"));
  if (field(change, "new") === null) return { topic, content: removeBranchMessage(actor(p), str(change, "old", "name")) };
  if (truthy(field(change, "forced"))) {
    return { topic, content: forcePushMessage(actor(p), htmlUrl(change), str(change, "new", "name"), str(change, "new", "target", "hash")) };
  }
  const commits = list(change, "commits").map((c) => ({
    name: commitAuthor(c),
    sha: str(c, "hash"),
    url: htmlUrl(c),
    message: str(c, "message"),
  }));
  const content = pushCommitsMessage({
    userName: actor(p),
    compareUrl: htmlUrl(change),
    branch: str(change, "new", "name"),
    commits,
    isTruncated: truthy(field(change, "truncated")),
  });
  return { topic, content };
}

/** Each changed ref, but branches the URL does not follow are left out (tags never are). */
function pushMessages(p: Payload, branches: string | undefined): WebhookMessage[] {
  return list(p, "push", "changes")
    .filter((change) => {
      const ref = refOf(change);
      return str(ref, "type") === "tag" || branchNotifiable(str(ref, "name"), branches);
    })
    .map((change) => pushMessage(p, change));
}

const forkBody: Body = (p) =>
  `${actor(p)} forked the repository into [${str(p, "fork", "full_name")}](${htmlUrl(p, "fork")}).`;

const commitCommentBody: Body = (p) =>
  commitCommentMessage(
    actor(p),
    `[commented](${htmlUrl(p, "comment")})`,
    htmlUrl(p, "comment", "commit"),
    str(p, "comment", "commit", "hash"),
    str(p, "comment", "content", "raw"),
  );

const commitStatusBody: Body = (p) => {
  const commitId = str(p, "commit_status", "links", "commit", "href").split("/").pop()!;
  const commit = `[${shortSha(commitId)}](${htmlUrl(p, "repository")}/commits/${commitId})`;
  const status = field(p, "commit_status");
  return `[System ${str(status, "key")}](${str(status, "url")}) changed status of ${commit} to ${str(status, "state")}.`;
};

const issueBody =
  (action: string): Body =>
  (p, title) => {
    const issue = field(p, "issue");
    const created = action === "created";
    return issueMessage({
      userName: actor(p),
      action,
      url: htmlUrl(issue),
      number: int(issue, "id"),
      message: created ? str(issue, "content", "raw") : null,
      assignee: created && truthy(field(issue, "assignee")) ? userInfo(field(issue, "assignee")) : null,
      title: titleIf(title, issue, "title"),
    });
  };

const issueCommentedBody: Body = (p, title) => issueBody(`[commented](${htmlUrl(p, "comment")}) on`)(p, title);

const pullRequestBody =
  (action: string): Body =>
  (p, title) => {
    const pr = field(p, "pullrequest");
    const merged = action === "merged";
    return pullRequestMessage({
      userName: actor(p),
      action,
      url: htmlUrl(pr),
      number: int(pr, "id"),
      targetBranch: merged ? str(pr, "source", "branch", "name") : null,
      baseBranch: merged ? str(pr, "destination", "branch", "name") : null,
      title: titleIf(title, pr, "title"),
    });
  };

const pullRequestCreatedOrUpdatedBody =
  (action: string): Body =>
  (p, title) => {
    const pr = field(p, "pullrequest");
    const created = action === "created";
    const reviewers = list(pr, "reviewers");
    return pullRequestMessage({
      userName: actor(p),
      action,
      url: htmlUrl(pr),
      number: int(pr, "id"),
      targetBranch: created ? str(pr, "source", "branch", "name") : null,
      baseBranch: created ? str(pr, "destination", "branch", "name") : null,
      message: str(pr, "description"),
      assignee: reviewers.length > 0 ? userInfo(reviewers[0]) : null,
      title: titleIf(title, pr, "title"),
    });
  };

const pullRequestCommentBody =
  (verb: string | null): Body =>
  (p, title) => {
    const link = htmlUrl(p, "comment");
    const action = verb === null ? `[commented](${link})` : `${verb} a [comment](${link})`;
    const pr = field(p, "pullrequest");
    return pullRequestMessage({
      userName: actor(p),
      action: `${action} on`,
      url: htmlUrl(pr),
      number: int(pr, "id"),
      message: str(p, "comment", "content", "raw"),
      title: titleIf(title, pr, "title"),
    });
  };

const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/** One line per changed setting the repository had or now has. */
const repoUpdatedBody: Body = (p) => {
  const name = repoName(p);
  const who = actor(p);
  const lines: string[] = [];
  for (const change of ["website", "name", "links", "language", "full_name", "description"]) {
    const oldValue = field(p, "changes", change, "old");
    const newValue = field(p, "changes", change, "new");
    if (!truthy(newValue)) continue;
    const label = change === "full_name" ? "full name" : change;
    const shown = display(newValue);
    const line = truthy(oldValue)
      ? `${who} changed the ${label} of the **${name}** repo from **${display(oldValue)}** to **${shown}**`
      : `${who} changed the ${label} of the **${name}** repo to **${shown}**`;
    lines.push(PUNCTUATION.includes(shown[shown.length - 1] ?? "") ? line : `${line}.`);
  }
  return lines.join("\n");
};

const BODIES: Record<string, Body> = {
  fork: forkBody,
  commit_comment: commitCommentBody,
  change_commit_status: commitStatusBody,
  issue_updated: issueBody("updated"),
  issue_created: issueBody("created"),
  issue_commented: issueCommentedBody,
  pull_request_created: pullRequestCreatedOrUpdatedBody("created"),
  pull_request_updated: pullRequestCreatedOrUpdatedBody("updated"),
  pull_request_approved: pullRequestBody("approved"),
  pull_request_unapproved: pullRequestBody("unapproved"),
  pull_request_fulfilled: pullRequestBody("merged"),
  pull_request_rejected: pullRequestBody("rejected"),
  pull_request_comment_created: pullRequestCommentBody(null),
  pull_request_comment_updated: pullRequestCommentBody("updated"),
  pull_request_comment_deleted: pullRequestCommentBody("deleted"),
  "repo:updated": repoUpdatedBody,
};

function topicFor(event: string, p: Payload): string {
  if (event.startsWith("pull_request")) {
    return pullRequestOrIssueTopic(repoName(p), "PR", int(p, "pullrequest", "id"), str(p, "pullrequest", "title"));
  }
  if (event.startsWith("issue")) return pullRequestOrIssueTopic(repoName(p), "issue", int(p, "issue", "id"), str(p, "issue", "title"));
  return repoName(p);
}

export const bitbucket2: Integration = {
  name: "bitbucket2",
  displayName: "Bitbucket2",
  handle({ json, headers, params }) {
    const event = eventOf(json, headers);
    if (event === "push") return { event, messages: pushMessages(json, params.branches || undefined), unquoteTopic: true };
    const content = BODIES[event]!(json, params.topic !== undefined);
    return { event, messages: [{ topic: topicFor(event, json), content }], unquoteTopic: true };
  },
};
