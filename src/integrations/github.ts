/**
 * GitHub (`/api/v1/external/github`) and GitHub Sponsors (`/api/v1/external/githubsponsors`,
 * which Zulip serves with the same view). The `X-GitHub-Event` header names the event; like
 * Zulip, the event the URL's filters see is refined from the payload (a pull request's action,
 * a push of commits or of a tag…), and known events Zulip does not report are acknowledged with
 * no message.
 */
import {
  bool,
  branchNotifiable,
  branchTopic,
  commitCommentMessage,
  eventHeader,
  field,
  int,
  issueLabelMessage,
  issueMessage,
  issueMilestoneMessage,
  list,
  optStr,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  pushTagMessage,
  quoteBlock,
  releaseMessage,
  setupMessage,
  shortSha,
  str,
  truthy,
  type Commit,
} from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration, type WebhookOutcome, type WebhookRequest } from "./types.js";

/** What a body builder reads: the payload, and whether a custom topic hides the title the topic would show. */
interface Ctx {
  payload: unknown;
  withTitle: boolean;
}

const sender = (p: unknown) => str(p, "sender", "login");
const senderUrl = (p: unknown) => str(p, "sender", "html_url");
const repoName = (p: unknown) => str(p, "repository", "name");
const repoFullName = (p: unknown) => str(p, "repository", "full_name");
const repoUrl = (p: unknown) => str(p, "repository", "html_url");
const branchOf = (ref: string) => (ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : ref);
const tagOf = (ref: string) => (ref.startsWith("refs/tags/") ? ref.slice("refs/tags/".length) : ref);

/** Python's `str()` of an optional value, which a few messages print as it is. */
function pyText(v: string | null): string {
  return v === null ? "None" : v;
}

function commentAction(p: unknown): string {
  const action = str(p, "action");
  const link = `(${str(p, "comment", "html_url")}) on`;
  return action === "created" ? `[commented]${link}` : `${action} a [comment]${link}`;
}

function isPullRequestComment(p: unknown): boolean {
  return field(p, "issue", "pull_request") !== undefined;
}

function prTitle(c: Ctx): string | null {
  return c.withTitle ? str(c.payload, "pull_request", "title") : null;
}

function openedOrUpdatedPullRequest(c: Ctx): string {
  const p = c.payload;
  let action = str(p, "action");
  if (action === "synchronize") action = "updated";
  const changes = field(p, "changes");
  const describe = field(changes, "body") !== undefined || action === "opened";
  const branches = action === "opened" || action === "merged";
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: str(p, "pull_request", "html_url"),
    number: int(p, "pull_request", "number"),
    targetBranch: branches ? str(p, "pull_request", "head", "label") : null,
    baseBranch: branches ? str(p, "pull_request", "base", "label") : null,
    message: describe ? optStr(p, "pull_request", "body") : null,
    assignee: truthy(field(p, "pull_request", "assignee")) ? str(p, "pull_request", "assignee", "login") : null,
    title: prTitle(c),
  });
}

function assignedOrUnassignedPullRequest(c: Ctx): string {
  const p = c.payload;
  return pullRequestMessage({
    userName: sender(p),
    action: str(p, "action"),
    assigneeUpdated: truthy(field(p, "assignee")) ? str(p, "assignee", "login") : null,
    url: str(p, "pull_request", "html_url"),
    number: int(p, "pull_request", "number"),
    title: prTitle(c),
  });
}

function closedPullRequest(c: Ctx): string {
  const p = c.payload;
  return pullRequestMessage({
    userName: sender(p),
    action: bool(p, "pull_request", "merged") ? "merged" : "closed without merge",
    url: str(p, "pull_request", "html_url"),
    number: int(p, "pull_request", "number"),
    title: prTitle(c),
  });
}

function prLink(p: unknown): string {
  return `[PR #${int(p, "pull_request", "number")}](${str(p, "pull_request", "html_url")})`;
}

function lockedOrUnlockedPullRequest(c: Ctx): string {
  const p = c.payload;
  if (str(p, "action") === "unlocked") return `${sender(p)} has unlocked ${prLink(p)}.`;
  const reason = truthy(field(p, "pull_request", "active_lock_reason")) ? str(p, "pull_request", "active_lock_reason") : null;
  return `${sender(p)} has locked ${prLink(p)} as ${pyText(reason)} and limited conversation to collaborators.`;
}

function pullRequestAutoMerge(c: Ctx): string {
  const p = c.payload;
  const state = str(p, "action") === "auto_merge_disabled" ? "disabled" : "enabled";
  return `${sender(p)} has ${state} auto merge for ${prLink(p)}.`;
}

function pullRequestReadyForReview(c: Ctx): string {
  return `**${sender(c.payload)}** has marked ${prLink(c.payload)} as ready for review.`;
}

function pullRequestReviewRequested(c: Ctx): string {
  const p = c.payload;
  const reviewers =
    field(p, "requested_reviewer") !== undefined
      ? `[${str(p, "requested_reviewer", "login")}](${str(p, "requested_reviewer", "html_url")})`
      : `[${str(p, "requested_team", "name")}](${str(p, "requested_team", "html_url")})`;
  const title = c.withTitle ? ` ${str(p, "pull_request", "title")}` : "";
  const link = `[PR #${int(p, "pull_request", "number")}${title}](${str(p, "pull_request", "html_url")})`;
  return `**${sender(p)}** requested ${reviewers} for a review on ${link}.`;
}

function pullRequestReview(c: Ctx): string {
  const p = c.payload;
  return pullRequestMessage({
    userName: sender(p),
    action: "submitted",
    url: str(p, "review", "html_url"),
    type: "PR review",
    title: c.withTitle ? `for #${int(p, "pull_request", "number")} ${str(p, "pull_request", "title")}` : null,
    message: optStr(p, "review", "body"),
  });
}

function pullRequestReviewComment(c: Ctx): string {
  const p = c.payload;
  const action = str(p, "action");
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: str(p, "comment", "html_url"),
    message: action === "created" ? str(p, "comment", "body") : null,
    type: "PR review comment",
    title: c.withTitle ? `on #${int(p, "pull_request", "number")} ${str(p, "pull_request", "title")}` : null,
  });
}

function issueTitle(c: Ctx): string | null {
  return c.withTitle ? str(c.payload, "issue", "title") : null;
}

function issues(c: Ctx): string {
  const p = c.payload;
  const action = str(p, "action");
  const changes = field(p, "changes");
  if (action === "transferred") {
    const link = `[issue #${int(p, "issue", "number")} ${str(p, "issue", "title")}](${str(p, "issue", "html_url")})`;
    const target = `${str(changes, "new_repository", "full_name")}/#${int(changes, "new_issue", "number")}`;
    return `${sender(p)} transferred ${link} to [${target}](${str(changes, "new_issue", "html_url")}).`;
  }
  if (action === "opened" && field(changes, "old_issue") !== undefined) {
    const link = `[Issue #${int(p, "issue", "number")} ${str(p, "issue", "title")}](${str(p, "issue", "html_url")})`;
    const source = `${str(changes, "old_repository", "full_name")}#${int(changes, "old_issue", "number")}`;
    return `${link} was transferred from [${source}](${str(changes, "old_issue", "html_url")}).`;
  }
  const assigning = action === "assigned" || action === "unassigned";
  return issueMessage({
    userName: sender(p),
    action,
    assigneeUpdated: assigning && field(p, "assignee") !== undefined ? str(p, "assignee", "login") : null,
    url: str(p, "issue", "html_url"),
    number: int(p, "issue", "number"),
    message: assigning ? null : optStr(p, "issue", "body"),
    title: issueTitle(c),
  });
}

function issueComment(c: Ctx): string {
  const p = c.payload;
  return pullRequestMessage({
    userName: sender(p),
    action: commentAction(p),
    url: str(p, "issue", "html_url"),
    number: int(p, "issue", "number"),
    message: str(p, "comment", "body"),
    title: issueTitle(c),
    type: isPullRequestComment(p) ? "PR" : "issue",
  });
}

function issueLabeledOrUnlabeled(c: Ctx): string {
  const p = c.payload;
  return issueLabelMessage({
    userName: sender(p),
    userUrl: senderUrl(p),
    action: str(p, "action") === "labeled" ? "added" : "removed",
    url: str(p, "issue", "html_url"),
    number: int(p, "issue", "number"),
    label: str(p, "label", "name"),
    title: issueTitle(c),
  });
}

function issueMilestonedOrDemilestoned(c: Ctx): string {
  const p = c.payload;
  return issueMilestoneMessage({
    userName: sender(p),
    userUrl: senderUrl(p),
    action: str(p, "action") === "milestoned" ? "added" : "removed",
    url: str(p, "issue", "html_url"),
    number: int(p, "issue", "number"),
    milestone: str(p, "milestone", "title"),
    milestoneUrl: str(p, "milestone", "html_url"),
    title: issueTitle(c),
  });
}

function discussionLink(c: Ctx): string {
  const p = c.payload;
  const title = c.withTitle ? ` ${str(p, "discussion", "title")}` : "";
  return `[discussion #${int(p, "discussion", "number")}${title}](${str(p, "discussion", "html_url")})`;
}

function discussion(c: Ctx): string {
  const p = c.payload;
  const action = str(p, "action");
  const who = sender(p);
  const changes = field(p, "changes");
  switch (action) {
    case "created": {
      const category = str(p, "discussion", "category", "name");
      const text = `### ${str(p, "discussion", "title")}\n${str(p, "discussion", "body")}`;
      return `${who} created [discussion #${int(p, "discussion", "number")}](${str(p, "discussion", "html_url")}) in ${category}:\n${quoteBlock(text)}`;
    }
    case "deleted": {
      const title = c.withTitle ? ` ${str(p, "discussion", "title")}` : "";
      return `${who} deleted discussion #${int(p, "discussion", "number")}${title}.`;
    }
    case "edited":
      if (field(changes, "title") !== undefined) {
        return `${who} edited the title of ${discussionLink(c)}:\n${quoteBlock(`### ${str(p, "discussion", "title")}`)}`;
      }
      return `${who} edited ${discussionLink(c)}:\n${quoteBlock(str(p, "discussion", "body"))}`;
    case "category_changed": {
      const from = str(changes, "category", "from", "name");
      return `${who} changed the category of ${discussionLink(c)} from ${from} to ${str(p, "discussion", "category", "name")}.`;
    }
    case "labeled":
      return `${who} added the ${str(p, "label", "name")} label to ${discussionLink(c)}.`;
    case "unlabeled":
      return `${who} removed the ${str(p, "label", "name")} label from ${discussionLink(c)}.`;
    case "answered":
      return `${who} marked [comment #${int(p, "answer", "id")}](${str(p, "answer", "html_url")}) as the answer.`;
    case "unanswered":
      return `${who} marked [comment #${int(p, "old_answer", "id")}](${str(p, "old_answer", "html_url")}) as not the answer.`;
    case "transferred": {
      const target = `${str(changes, "new_repository", "full_name")}#${int(changes, "new_discussion", "number")}`;
      return `${who} transferred ${discussionLink(c)} to [${target}](${str(changes, "new_discussion", "html_url")}).`;
    }
    case "closed":
    case "reopened":
    case "locked":
    case "unlocked":
    case "pinned":
    case "unpinned":
      return `${who} ${action} ${discussionLink(c)}.`;
    default:
      throw new UnsupportedEvent(`discussion:${action}`);
  }
}

function discussionComment(c: Ctx): string {
  const p = c.payload;
  return pullRequestMessage({
    userName: sender(p),
    action: commentAction(p),
    url: str(p, "discussion", "html_url"),
    number: int(p, "discussion", "number"),
    message: str(p, "comment", "body"),
    title: c.withTitle ? str(p, "discussion", "title") : null,
    type: "discussion",
  });
}

function pushCommits(c: Ctx): string {
  const p = c.payload;
  const commits: Commit[] = list(p, "commits").map((commit) => ({
    name: truthy(field(commit, "author", "username")) ? str(commit, "author", "username") : str(commit, "author", "name"),
    sha: str(commit, "id"),
    url: str(commit, "url"),
    message: str(commit, "message"),
  }));
  return pushCommitsMessage({
    userName: sender(p),
    compareUrl: str(p, "compare"),
    branch: branchOf(str(p, "ref")),
    commits,
    deleted: bool(p, "deleted"),
    forcePush: bool(p, "forced"),
  });
}

function pushTags(c: Ctx): string {
  const p = c.payload;
  return pushTagMessage(sender(p), tagOf(str(p, "ref")), null, bool(p, "created") ? "pushed" : "removed");
}

const createOrDelete = (verb: string) => (c: Ctx) =>
  `${sender(c.payload)} ${verb} ${str(c.payload, "ref_type")} ${str(c.payload, "ref")}.`.trimEnd();

function commitComment(c: Ctx): string {
  const p = c.payload;
  const commentUrl = str(p, "comment", "html_url");
  const hash = commentUrl.indexOf("#");
  const commitUrl = hash < 0 ? commentUrl : commentUrl.slice(0, hash);
  return commitCommentMessage(sender(p), `[commented](${commentUrl})`, commitUrl, str(p, "comment", "commit_id"), str(p, "comment", "body"));
}

function release(c: Ctx): string {
  const p = c.payload;
  const tag = str(p, "release", "tag_name");
  const name = truthy(field(p, "release", "name")) ? str(p, "release", "name") : tag;
  return releaseMessage(sender(p), str(p, "action"), tag, name, str(p, "release", "html_url"));
}

const PAGE_BUILD_STATES: Record<string, string> = {
  null: "has yet to be built",
  building: "is being built",
  errored: "has failed: {}",
  built: "has finished building",
};

function pageBuild(c: Ctx): string {
  const p = c.payload;
  const status = str(p, "build", "status");
  let action = Object.hasOwn(PAGE_BUILD_STATES, status) ? PAGE_BUILD_STATES[status]! : `is ${status}`;
  if (truthy(field(p, "build", "error", "message"))) {
    action = action.replace("{}", quoteBlock(str(p, "build", "error", "message")));
  }
  return `GitHub Pages build, triggered by ${str(p, "build", "pusher", "login")}, ${action}.`;
}

function status(c: Ctx): string {
  const p = c.payload;
  const state = truthy(field(p, "target_url")) ? `[${str(p, "state")}](${str(p, "target_url")})` : str(p, "state");
  return `[${shortSha(str(p, "sha"))}](${str(p, "commit", "html_url")}) changed its status to ${state}.`;
}

function checkRun(c: Ctx): string {
  const p = c.payload;
  const sha = str(p, "check_run", "head_sha");
  const name = str(p, "check_run", "name");
  const url = str(p, "check_run", "html_url");
  const state = `${str(p, "check_run", "status")} (${str(p, "check_run", "conclusion")})`;
  return `Check [${name}](${url}) ${state}. ([${shortSha(sha)}](${repoUrl(p)}/commit/${sha}))`;
}

function team(c: Ctx): string {
  const p = c.payload;
  const changes = field(p, "changes");
  if (field(changes, "description") !== undefined) {
    return `**${sender(p)}** changed the team description to:\n${quoteBlock(str(p, "team", "description"))}`;
  }
  if (field(changes, "name") !== undefined) {
    return `Team \`${str(changes, "name", "from")}\` was renamed to \`${str(p, "team", "name")}\`.`;
  }
  if (field(changes, "privacy") !== undefined) return `Team visibility changed to \`${str(p, "team", "privacy")}\``;
  const keys = changes !== null && typeof changes === "object" ? Object.keys(changes).sort() : [];
  return `Team has changes to \`${keys.join("/")}\` data.`;
}

function wikiPages(c: Ctx): string {
  const p = c.payload;
  const rows = list(p, "pages").map((page) => `* ${str(page, "action")} [${str(page, "title")}](${str(page, "html_url")})`);
  return `${sender(p)}:\n${rows.join("\n")}`;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** The day part of a timestamp as "January 05, 2020". */
function effectiveDate(p: unknown): string {
  const day = /^(\d{4})-(\d{2})-(\d{2})/.exec(str(p, "effective_date"));
  const month = day ? MONTHS[Number(day[2]) - 1] : undefined;
  if (!day || !month) throw new AnomalousPayload();
  return `${month} ${day[3]}, ${day[1]}`;
}

const tier = (p: unknown) => str(p, "sponsorship", "tier", "name");
const priorTier = (p: unknown) => str(p, "changes", "tier", "from", "name");

const BODIES: Record<string, (c: Ctx) => string> = {
  commit_comment: commitComment,
  closed_pull_request: closedPullRequest,
  create: createOrDelete("created"),
  check_run: checkRun,
  delete: createOrDelete("deleted"),
  deployment: (c) => `${sender(c.payload)} created new deployment.`,
  deployment_status: (c) => `Deployment changed status to ${str(c.payload, "deployment_status", "state")}.`,
  discussion,
  discussion_comment: discussionComment,
  fork: (c) => `${sender(c.payload)} forked [${str(c.payload, "forkee", "name")}](${str(c.payload, "forkee", "html_url")}).`,
  gollum: wikiPages,
  issue_comment: issueComment,
  issue_labeled_or_unlabeled: issueLabeledOrUnlabeled,
  issue_milestoned_or_demilestoned: issueMilestonedOrDemilestoned,
  issues,
  member: (c) => {
    const p = c.payload;
    return `${sender(p)} ${str(p, "action")} [${str(p, "member", "login")}](${str(p, "member", "html_url")}) to [${repoName(p)}](${repoUrl(p)}).`;
  },
  membership: (c) => {
    const p = c.payload;
    const action = str(p, "action");
    const member = `[${str(p, "member", "login")}](${str(p, "member", "html_url")})`;
    return `${sender(p)} ${action} ${member} ${action === "removed" ? "from" : "to"} the ${str(p, "team", "name")} team.`;
  },
  opened_pull_request: openedOrUpdatedPullRequest,
  updated_pull_request: openedOrUpdatedPullRequest,
  assigned_or_unassigned_pull_request: assignedOrUnassignedPullRequest,
  page_build: pageBuild,
  ping: (c) => setupMessage("GitHub", sender(c.payload)),
  public: (c) => `${sender(c.payload)} made the repository [${repoFullName(c.payload)}](${repoUrl(c.payload)}) public.`,
  pull_request_ready_for_review: pullRequestReadyForReview,
  pull_request_review: pullRequestReview,
  pull_request_review_comment: pullRequestReviewComment,
  pull_request_review_requested: pullRequestReviewRequested,
  pull_request_auto_merge: pullRequestAutoMerge,
  locked_or_unlocked_pull_request: lockedOrUnlockedPullRequest,
  push_commits: pushCommits,
  push_tags: pushTags,
  release,
  repository: (c) => `${sender(c.payload)} ${str(c.payload, "action")} the repository [${repoFullName(c.payload)}](${repoUrl(c.payload)}).`,
  star: (c) => {
    const p = c.payload;
    const action = str(p, "action") === "created" ? "starred" : "unstarred";
    return `[${sender(p)}](${senderUrl(p)}) ${action} the repository [${repoFullName(p)}](${repoUrl(p)}).`;
  },
  status,
  team,
  team_add: (c) => `The repository [${repoFullName(c.payload)}](${repoUrl(c.payload)}) was added to team ${str(c.payload, "team", "name")}.`,
  watch: (c) => `${sender(c.payload)} starred the repository [${repoFullName(c.payload)}](${repoUrl(c.payload)}).`,
  cancelled: (c) => `${sender(c.payload)} cancelled their ${tier(c.payload)} subscription.`,
  created: (c) => `${sender(c.payload)} subscribed for ${tier(c.payload)}.`,
  edited: (c) => {
    const p = c.payload;
    const from = str(p, "changes", "privacy_level", "from");
    return `${sender(p)} changed who can see their sponsorship from ${from} to ${str(p, "sponsorship", "privacy_level")}.`;
  },
  pending_cancellation: (c) => `${sender(c.payload)}'s ${tier(c.payload)} subscription will be cancelled on ${effectiveDate(c.payload)}.`,
  pending_tier_change: (c) => {
    const p = c.payload;
    return `${sender(p)}'s subscription will change from ${priorTier(p)} to ${tier(p)} on ${effectiveDate(p)}.`;
  },
  tier_changed: (c) => `${sender(c.payload)} changed their subscription from ${priorTier(c.payload)} to ${tier(c.payload)}.`,
};

const SPONSORS_EVENTS = new Set(["cancelled", "created", "edited", "pending_cancellation", "pending_tier_change", "tier_changed"]);

/** Events GitHub sends that Zulip acknowledges without a message. */
const IGNORED_EVENTS = new Set([
  "check_suite",
  "label",
  "meta",
  "milestone",
  "organization",
  "project_card",
  "push__merge_queue",
  "repository_vulnerability_alert",
]);

const IGNORED_PULL_REQUEST_ACTIONS = new Set(["approved", "converted_to_draft", "labeled", "review_request_removed", "unlabeled"]);

/** Team actions GitHub documents that Zulip does not report; any other team action is new and refused. */
const IGNORED_TEAM_ACTIONS = new Set(["added_to_repository", "created", "deleted", "removed_from_repository"]);

const PULL_REQUEST_EVENTS: Record<string, string> = {
  opened: "opened_pull_request",
  reopened: "opened_pull_request",
  synchronize: "updated_pull_request",
  edited: "updated_pull_request",
  assigned: "assigned_or_unassigned_pull_request",
  unassigned: "assigned_or_unassigned_pull_request",
  closed: "closed_pull_request",
  review_requested: "pull_request_review_requested",
  ready_for_review: "pull_request_ready_for_review",
  locked: "locked_or_unlocked_pull_request",
  unlocked: "locked_or_unlocked_pull_request",
  auto_merge_enabled: "pull_request_auto_merge",
  auto_merge_disabled: "pull_request_auto_merge",
};

/** The event Zulip names for a header and payload, or null for one it acknowledges silently. */
function zulipEvent(header: string, p: unknown, branches: string | undefined): string | null {
  switch (header) {
    case "pull_request": {
      const action = str(p, "action");
      if (Object.hasOwn(PULL_REQUEST_EVENTS, action)) return PULL_REQUEST_EVENTS[action]!;
      if (IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
      break;
    }
    case "push": {
      const ref = str(p, "ref");
      if (ref.startsWith("refs/heads/gh-readonly-queue/")) return null;
      if (!ref.startsWith("refs/heads/")) return "push_tags";
      return branchNotifiable(branchOf(ref), branches) ? "push_commits" : null;
    }
    case "check_run":
      return str(p, "check_run", "status") === "completed" ? "check_run" : null;
    case "team": {
      const action = str(p, "action");
      if (action === "edited") return "team";
      if (IGNORED_TEAM_ACTIONS.has(action)) return null;
      throw new UnsupportedEvent(`unsupported team action ${action}`);
    }
    case "issues": {
      const action = str(p, "action");
      if (action === "labeled" || action === "unlabeled") return "issue_labeled_or_unlabeled";
      if (action === "milestoned" || action === "demilestoned") return "issue_milestoned_or_demilestoned";
      return "issues";
    }
    case "issue_comment":
      // GitHub also reports an edit that left the comment's text as it was.
      if (str(p, "action") === "edited" && field(p, "changes", "body", "from") === field(p, "comment", "body")) return null;
      return header;
    case "pull_request_review": {
      const changes = field(p, "changes");
      if (str(p, "action") === "edited" && !truthy(changes)) return null;
      return header;
    }
    default:
      if (Object.hasOwn(BODIES, header)) return header;
      if (IGNORED_EVENTS.has(header)) return null;
  }
  const action = field(p, "action");
  throw new UnsupportedEvent(`${header}:${typeof action === "string" ? action : "???"}`);
}

function topicFor(p: unknown, event: string): string {
  if (event.includes("pull_request")) {
    return pullRequestOrIssueTopic(repoName(p), "PR", int(p, "pull_request", "number"), str(p, "pull_request", "title"));
  }
  if (event.startsWith("issue")) {
    const type = isPullRequestComment(p) ? "PR" : "issue";
    return pullRequestOrIssueTopic(repoName(p), type, int(p, "issue", "number"), str(p, "issue", "title"));
  }
  if (event.startsWith("deployment")) return `${repoName(p)} / Deployment on ${str(p, "deployment", "environment")}`;
  if (event === "membership") return `${str(p, "organization", "login")} organization`;
  if (event === "team") return `team ${str(p, "team", "name")}`;
  if (event === "push_commits") return branchTopic(repoName(p), branchOf(str(p, "ref")));
  if (event === "gollum") return branchTopic(repoName(p), "wiki pages");
  if (event === "ping" && !truthy(field(p, "repository"))) return str(p, "organization", "login");
  if (event === "check_run") return `${repoName(p)} / checks`;
  if (event.startsWith("discussion")) {
    return `${repoName(p)} discussion #${int(p, "discussion", "number")}: ${str(p, "discussion", "title")}`;
  }
  if (SPONSORS_EVENTS.has(event)) return "sponsors";
  return repoName(p);
}

/** `ignore_private_repositories` is a JSON boolean in the URL. */
function ignoresPrivate(params: Record<string, string>): boolean {
  const raw = params.ignore_private_repositories;
  return raw !== undefined && raw.trim().toLowerCase() === "true";
}

function handle(request: WebhookRequest): WebhookOutcome {
  const payload = request.json;
  const header = eventHeader(request.headers, "X-GitHub-Event");
  if (ignoresPrivate(request.params) && field(payload, "repository", "private") === true) return { messages: [] };
  const event = zulipEvent(header, payload, request.params.branches);
  if (event === null) return { messages: [] };
  const ctx: Ctx = { payload, withTitle: request.params.topic !== undefined };
  return { event, messages: [{ topic: topicFor(payload, event), content: BODIES[event]!(ctx) }] };
}

export const github: Integration = { name: "github", displayName: "GitHub", handle };

/** Zulip serves GitHub Sponsors' webhooks with the GitHub view itself, so its errors and client name say GitHub too. */
export const githubSponsors: Integration = { name: "githubsponsors", displayName: "GitHub", handle };
