/**
 * Bitbucket Server (and Data Center): the payload's `eventKey` names the event, except for the
 * test delivery, which has only the `X-Event-Key` header. Users are shown as links to their
 * profiles; one push to several refs gives one message per ref.
 */
import {
  branchNotifiable,
  branchTopic,
  commitCommentMessage,
  createBranchMessage,
  eventHeader,
  field,
  int,
  list,
  optStr,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushTagMessage,
  removeBranchMessage,
  str,
} from "./git.js";
import { UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

type Payload = unknown;
/** `title` is set when the body names the pull request's title (the URL gives its own topic). */
type Handler = (p: Payload, branches: string | undefined, title: boolean) => WebhookMessage[];

const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const endsInPunctuation = (text: string) => PUNCTUATION.includes(text[text.length - 1] ?? "");

const selfLink = (value: unknown, ...path: string[]) => str(list(value, ...path, "links", "self")[0], "href");
const userLink = (user: unknown) => `[${str(user, "name")}](${selfLink(user)})`;
const actor = (p: Payload) => userLink(field(p, "actor"));
const repoName = (p: Payload) => str(p, "repository", "name");

const ping: Handler = () => [
  { topic: "Bitbucket Server Ping", content: "Congratulations! The Bitbucket Server webhook was configured successfully!" },
];

const commitComment =
  (action: string): Handler =>
  (p) => {
    const sha = str(p, "commit");
    // The repository's link ends in "browse"; its commits are beside it.
    const commitUrl = `${selfLink(p, "repository").slice(0, -"browse".length)}commits/${sha}`;
    const text = str(p, "comment", "text");
    const message = action === "deleted their comment" ? `~~${text}~~` : text;
    return [{ topic: repoName(p), content: commitCommentMessage(actor(p), action, commitUrl, sha, message) }];
  };

const forked: Handler = (p) => {
  const content =
    `User ${str(p, "actor", "displayName")}(login: ${actor(p)}) forked the repository into ` +
    `[${repoName(p)}](${selfLink(p, "repository")}).`;
  return [{ topic: str(p, "repository", "origin", "name"), content }];
};

/** Bitbucket Server reports only renames this way. */
const modified: Handler = (p) => {
  const oldName = str(p, "old", "name");
  const newName = str(p, "new", "name");
  const text = `${actor(p)} changed the name of the **${oldName}** repo from **${oldName}** to **${newName}**`;
  return [{ topic: newName, content: endsInPunctuation(newName) ? text : `${text}.` }];
};

function branchChange(p: Payload, change: unknown): WebhookMessage {
  const branch = str(change, "ref", "displayId");
  const type = str(change, "type");
  let content: string;
  if (type === "ADD") content = createBranchMessage(actor(p), null, branch);
  else if (type === "UPDATE") content = `${actor(p)} pushed to branch ${branch}. Head is now ${str(change, "toHash")}.`;
  else if (type === "DELETE") content = removeBranchMessage(actor(p), branch);
  else throw new UnsupportedEvent(`${str(p, "eventKey")}.${type}`);
  return { topic: branchTopic(repoName(p), branch), content };
}

function tagChange(p: Payload, change: unknown): WebhookMessage {
  const type = str(change, "type");
  if (type !== "ADD" && type !== "DELETE") throw new UnsupportedEvent(`${str(p, "eventKey")}.${type}`);
  const action = type === "ADD" ? "pushed" : "removed";
  return { topic: repoName(p), content: pushTagMessage(actor(p), str(change, "ref", "displayId"), null, action) };
}

const refsChanged: Handler = (p, branches) => {
  const messages: WebhookMessage[] = [];
  for (const change of list(p, "changes")) {
    const refType = str(change, "ref", "type");
    if (refType === "BRANCH") {
      if (branchNotifiable(str(change, "ref", "displayId"), branches)) messages.push(branchChange(p, change));
    } else if (refType === "TAG") {
      messages.push(tagChange(p, change));
    } else {
      throw new UnsupportedEvent(`${str(p, "eventKey")}.${refType}`);
    }
  }
  return messages;
};

/** Reviewers as profile links: "a", "a and b", "a, b and c"; null when there are none. */
function reviewersText(pr: unknown): string | null {
  const links = list(pr, "reviewers").map((r) => userLink(field(r, "user")));
  if (links.length === 0) return null;
  if (links.length === 1) return links[0]!;
  return `${links.slice(0, -1).join(", ")} and ${links[links.length - 1]}`;
}

function pullRequestTopic(pr: unknown): string {
  return pullRequestOrIssueTopic(str(pr, "toRef", "repository", "name"), "PR", int(pr, "id"), str(pr, "title"));
}

function prLink(pr: unknown, title: boolean): string {
  return `[PR #${int(pr, "id")}${title ? ` ${str(pr, "title")}` : ""}](${selfLink(pr)})`;
}

function pullRequestBody(p: Payload, action: string, title: boolean): string {
  const pr = field(p, "pullRequest");
  const base = {
    userName: actor(p),
    action,
    url: selfLink(pr),
    number: int(pr, "id"),
    title: title ? str(pr, "title") : null,
  };
  switch (action) {
    case "opened":
    case "modified": {
      const opened = action === "opened";
      return pullRequestMessage({
        ...base,
        targetBranch: opened ? str(pr, "fromRef", "displayId") : null,
        baseBranch: opened ? str(pr, "toRef", "displayId") : null,
        message: optStr(pr, "description"),
        reviewer: reviewersText(pr),
      });
    }
    case "merged":
      return pullRequestMessage({ ...base, targetBranch: str(pr, "fromRef", "displayId"), baseBranch: str(pr, "toRef", "displayId") });
    case "needs_work":
      return `${actor(p)} marked ${prLink(pr, title)} as "needs work".`;
    case "reviewers_updated": {
      const reviewers = reviewersText(pr);
      if (reviewers !== null) return `${actor(p)} reassigned ${prLink(pr, title)} to ${reviewers}.`;
      const text = `${actor(p)} removed all reviewers from ${prLink(pr, title)}`;
      return title && endsInPunctuation(str(pr, "title")) ? text : `${text}.`;
    }
    default:
      return pullRequestMessage(base);
  }
}

const pullRequest =
  (action: string): Handler =>
  (p, _branches, title) => [{ topic: pullRequestTopic(field(p, "pullRequest")), content: pullRequestBody(p, action, title) }];

const pullRequestComment =
  (action: string): Handler =>
  (p, _branches, title) => {
    const pr = field(p, "pullRequest");
    const text = str(p, "comment", "text");
    const content = pullRequestMessage({
      userName: actor(p),
      action,
      url: selfLink(pr),
      number: int(pr, "id"),
      message: action === "deleted their comment on" ? `~~${text}~~` : text,
      title: title ? str(pr, "title") : null,
    });
    return [{ topic: pullRequestTopic(pr), content }];
  };

const HANDLERS: Record<string, Handler> = {
  "diagnostics:ping": ping,
  "repo:comment:added": commitComment("commented"),
  "repo:comment:edited": commitComment("edited their comment"),
  "repo:comment:deleted": commitComment("deleted their comment"),
  "repo:forked": forked,
  "repo:modified": modified,
  "repo:refs_changed": refsChanged,
  "pr:comment:added": pullRequestComment("commented on"),
  "pr:comment:edited": pullRequestComment("edited their comment on"),
  "pr:comment:deleted": pullRequestComment("deleted their comment on"),
  "pr:declined": pullRequest("declined"),
  "pr:deleted": pullRequest("deleted"),
  "pr:merged": pullRequest("merged"),
  "pr:modified": pullRequest("modified"),
  "pr:opened": pullRequest("opened"),
  "pr:reviewer:approved": pullRequest("approved"),
  "pr:reviewer:needs_work": pullRequest("needs_work"),
  "pr:reviewer:updated": pullRequest("reviewers_updated"),
  "pr:reviewer:unapproved": pullRequest("unapproved"),
};

export const bitbucket3: Integration = {
  name: "bitbucket3",
  displayName: "Bitbucket3",
  handle({ json, headers, params }) {
    // The test delivery is the one event named only by the header.
    const event = field(json, "eventKey") === undefined ? eventHeader(headers, "X-Event-Key") : str(json, "eventKey");
    if (!Object.hasOwn(HANDLERS, event)) throw new UnsupportedEvent(event);
    const messages = HANDLERS[event]!(json, params.branches || undefined, Boolean(params.topic));
    return { event, messages, unquoteTopic: true };
  },
};
