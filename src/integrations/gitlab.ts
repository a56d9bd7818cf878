/**
 * GitLab: the event is the `X-GitLab-Event` header (a System Hook names it in the payload),
 * refined by the object's action or the commented object's type, as Zulip words each one.
 * A custom topic puts the project's link and the object's title into the body instead.
 */
import {
  branchNotifiable,
  branchTopic,
  commitCommentMessage,
  EMPTY_SHA,
  eventHeader,
  field,
  int,
  issueMessage,
  list,
  optStr,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  pushTagMessage,
  quoteBlock,
  releaseMessageWithoutUser,
  removeBranchMessage,
  str,
  truthy,
} from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration } from "./types.js";

type Payload = unknown;
/** `title` is set when the body names the object's title (the URL gives its own topic). */
type Body = (p: Payload, title: boolean) => string;

const has = (value: unknown, key: string) => field(value, key) !== undefined;
const repoName = (p: Payload) => (has(p, "project") ? str(p, "project", "name") : str(p, "repository", "name"));
const projectHomepage = (p: Payload) => (has(p, "project") ? str(p, "project", "web_url") : str(p, "repository", "homepage"));
const userName = (p: Payload) => str(p, "user_name");
const actorName = (p: Payload) => str(p, "user", "name");
const branchName = (p: Payload) => str(p, "ref").replaceAll("refs/heads/", "");
const attr = (p: Payload) => field(p, "object_attributes");
const titleIf = (title: boolean, value: unknown, ...path: string[]) => (title ? str(value, ...path) : null);

function pushBody(p: Payload): string {
  if (truthy(field(p, "after")) && str(p, "after") === EMPTY_SHA) return removeBranchMessage(userName(p), branchName(p));
  const commits = list(p, "commits").map((c) => ({
    name: str(c, "author", "name"),
    sha: str(c, "id"),
    message: str(c, "message"),
    url: str(c, "url"),
  }));
  return pushCommitsMessage({
    userName: userName(p),
    compareUrl: `${projectHomepage(p)}/-/compare/${str(p, "before")}...${str(p, "after")}`,
    branch: branchName(p),
    commits,
  });
}

function tagPushBody(p: Payload): string {
  const tag = str(p, "ref").replaceAll("refs/tags/", "");
  return pushTagMessage(userName(p), tag, null, truthy(field(p, "checkout_sha")) ? "pushed" : "removed");
}

/** GitLab's templates hide notes to the author in HTML comments, which Zulip drops. */
function withoutHiddenComments(text: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const open = text.indexOf("<!--", from);
    if (open < 0) break;
    const close = text.indexOf("-->", open + 4);
    if (close < 0) break;
    out += text.slice(from, open);
    from = close + 3;
  }
  return out + text.slice(from);
}

/** Assignees by full name: the `assignees` list, else the single `assignee`. */
function assigneeNames(p: Payload): string[] {
  const many = field(p, "assignees");
  const chosen = truthy(many) ? list(p, "assignees") : truthy(field(p, "assignee")) ? [field(p, "assignee")] : [];
  return chosen.map((a) => str(a, "name"));
}

const issueCreatedBody: Body = (p, title) => {
  const description = field(attr(p), "description");
  return issueMessage({
    userName: actorName(p),
    action: "created",
    url: str(attr(p), "url"),
    number: int(attr(p), "iid"),
    message: truthy(description) ? withoutHiddenComments(str(attr(p), "description")).trimEnd() : null,
    assignees: assigneeNames(p),
    title: titleIf(title, attr(p), "title"),
  });
};

const issueBody =
  (action: string): Body =>
  (p, title) =>
    issueMessage({
      userName: actorName(p),
      action,
      url: str(attr(p), "url"),
      number: int(attr(p), "iid"),
      title: titleIf(title, attr(p), "title"),
    });

const mergeRequestBody =
  (action: string): Body =>
  (p, title) => {
    const mr = attr(p);
    const merged = action === "merged";
    return pullRequestMessage({
      userName: actorName(p),
      action,
      url: str(mr, "url"),
      number: int(mr, "iid"),
      targetBranch: merged ? str(mr, "source_branch") : null,
      baseBranch: merged ? str(mr, "target_branch") : null,
      type: "MR",
      title: titleIf(title, mr, "title"),
    });
  };

const mergeRequestOpenedOrUpdatedBody =
  (action: string): Body =>
  (p, title) => {
    const mr = attr(p);
    const created = action === "created";
    return pullRequestMessage({
      userName: actorName(p),
      action,
      url: str(mr, "url"),
      number: int(mr, "iid"),
      targetBranch: created ? str(mr, "source_branch") : null,
      baseBranch: created ? str(mr, "target_branch") : null,
      message: optStr(mr, "description"),
      assignees: assigneeNames(p),
      type: "MR",
      title: titleIf(title, mr, "title"),
    });
  };

/** An update that carries the previous head is a push to the merge request's branch. */
const mergeRequestUpdatedBody: Body = (p, title) =>
  truthy(field(attr(p), "oldrev")) ? mergeRequestBody("added commit(s) to")(p, title) : mergeRequestOpenedOrUpdatedBody("updated")(p, title);

const commitNoteBody: Body = (p) =>
  commitCommentMessage(
    actorName(p),
    `[commented](${str(attr(p), "url")})`,
    str(p, "commit", "url"),
    str(p, "commit", "id"),
    str(attr(p), "note"),
  );

const noteOnBody =
  (object: "merge_request" | "issue", type: string): Body =>
  (p, title) =>
    pullRequestMessage({
      userName: actorName(p),
      action: `[commented](${str(attr(p), "url")}) on`,
      url: str(p, object, "url"),
      number: int(p, object, "iid"),
      message: str(attr(p), "note"),
      type,
      title: titleIf(title, p, object, "title"),
    });

/** A design's note names neither issue nor design: both come from the design file's path, `designs/issue-<n>/<name>`. */
function designOf(p: Payload): { name: string; url: string } {
  const parts = str(attr(p), "position", "new_path").split("/");
  if (parts.length !== 3) throw new AnomalousPayload();
  const issue = parts[1]!.split("-").pop()!;
  return { name: parts[2]!, url: `${str(p, "repository", "homepage")}/-/issues/${issue}/designs/${parts[2]}` };
}

const designNoteBody: Body = (p) => {
  const design = designOf(p);
  const commentUrl = `${design.url}#note_${int(attr(p), "id")}`;
  return `${actorName(p)} [commented](${commentUrl}) on design [${design.name}](${design.url}):\n${quoteBlock(str(attr(p), "note"))}`;
};

const snippetNoteBody: Body = (p, title) => {
  const snippet = field(p, "snippet");
  // Snippets carry their own URL from GitLab 16.1 on.
  const url = has(snippet, "url") ? str(snippet, "url") : `${str(p, "project", "web_url")}/-/snippets/${int(snippet, "id")}`;
  return pullRequestMessage({
    userName: actorName(p),
    action: `[commented](${str(attr(p), "url")}) on`,
    url,
    number: int(snippet, "id"),
    message: str(attr(p), "note"),
    type: "snippet",
    title: titleIf(title, snippet, "title"),
  });
};

const wikiPageBody =
  (action: string): Body =>
  (p) =>
    `${actorName(p)} ${action} [wiki page "${str(attr(p), "title")}"](${str(attr(p), "url")}).`;

function statusAction(status: string, startedWhen: string): string {
  if (status === startedWhen) return "was created";
  if (status === "running") return "started";
  return `changed status to ${status}`;
}

const buildBody: Body = (p) =>
  `Build ${str(p, "build_name")} from ${str(p, "build_stage")} stage ${statusAction(str(p, "build_status"), "created")}.`;

const testBody: Body = (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`;

const pipelineBody: Body = (p) => {
  const home = projectHomepage(p);
  const id = int(attr(p), "id");
  const builds = list(p, "builds").map((b) => {
    const buildUrl = `${home}/-/jobs/${int(b, "id")}`;
    const artifact = field(b, "artifacts_file", "filename");
    const artifactLine = truthy(artifact)
      ? `  * built artifact: *${str(b, "artifacts_file", "filename")}* [[Browse](${buildUrl}/artifacts/browse)|[Download](${buildUrl}/artifacts/download)]\n`
      : "";
    return `* [${str(b, "name")}](${buildUrl}) - ${str(b, "status")}\n${artifactLine}`;
  });
  const action = statusAction(str(attr(p), "status"), "pending");
  return `[Pipeline (${id})](${home}/-/pipelines/${id}) ${action} with build(s):\n${builds.join("").slice(0, -1)}.`;
};

const releaseBody: Body = (p) => {
  const action = str(p, "action");
  const name = str(p, "name");
  const tag = str(p, "tag");
  if (action === "delete") return releaseMessageWithoutUser(`${action}d`, tag, name);
  const body = releaseMessageWithoutUser(`${action}d`, tag, name, str(p, "url"));
  return has(p, "description") ? body + quoteBlock(str(p, "description")) : body;
};

const featureFlagBody: Body = (p) => {
  const flag = attr(p);
  const action = truthy(field(flag, "active")) ? "activated" : "deactivated";
  return `${str(p, "user", "username")} ${action} the feature flag [${str(flag, "name")}](${str(p, "project", "web_url")}/-/feature_flags).`;
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `YYYY-MM-DD` as "Mon DD, YYYY". */
function expiryDate(text: string): string {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text);
  const month = m ? Number(m[2]) : 0;
  const day = m ? Number(m[3]) : 0;
  if (!m || month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(Number(m[1]), month, 0)).getUTCDate()) {
    throw new AnomalousPayload();
  }
  return `${MONTHS[month - 1]} ${String(day).padStart(2, "0")}, ${m[1]}`;
}

const accessTokenBody: Body = (p) => {
  const token = attr(p);
  const page = has(p, "group")
    ? `https://gitlab.com/groups/${str(p, "group", "group_path")}/-/settings/access_tokens`
    : `${str(p, "project", "web_url")}/-/settings/access_tokens`;
  return `The access token [${str(token, "name")}](${page}) will expire on ${expiryDate(str(token, "expires_at"))}.`;
};

const deploymentBody: Body = (p) => {
  const user = `[${str(p, "user", "name")}](${str(p, "user_url")})`;
  const deployableUrl = field(p, "deployable_url");
  const deployment = typeof deployableUrl === "string" && deployableUrl ? `[deployment](${deployableUrl})` : "deployment";
  const commitUrl = str(p, "commit_url");
  const sha = commitUrl.split("/").pop()!.slice(0, 7);
  switch (str(p, "status")) {
    case "running":
      return `${user} started a new ${deployment}:\n> [${sha}](${commitUrl}) ${str(p, "commit_title")}`;
    case "success":
      return `The ${deployment} was successful.`;
    case "failed":
      return `The ${deployment} failed.`;
    case "canceled":
      return `The ${deployment} was canceled.`;
    default:
      throw new AnomalousPayload();
  }
};

const BODIES: Record<string, Body> = {
  "Push Hook": pushBody,
  "Tag Push Hook": tagPushBody,
  "Test Hook": testBody,
  "Issue Hook open": issueCreatedBody,
  "Issue Hook close": issueBody("closed"),
  "Issue Hook reopen": issueBody("reopened"),
  "Issue Hook update": issueBody("updated"),
  "Confidential Issue Hook open": issueCreatedBody,
  "Confidential Issue Hook close": issueBody("closed"),
  "Confidential Issue Hook reopen": issueBody("reopened"),
  "Confidential Issue Hook update": issueBody("updated"),
  "Note Hook Commit": commitNoteBody,
  "Note Hook MergeRequest": noteOnBody("merge_request", "MR"),
  "Note Hook Issue": noteOnBody("issue", "issue"),
  "Confidential Note Hook Issue": noteOnBody("issue", "issue"),
  "Note Hook DesignManagement::Design": designNoteBody,
  "Confidential Note Hook DesignManagement::Design": designNoteBody,
  "Note Hook Snippet": snippetNoteBody,
  "Merge Request Hook approved": mergeRequestBody("approved"),
  "Merge Request Hook unapproved": mergeRequestBody("unapproved"),
  // Sent instead of approved/unapproved when more than one approval is required.
  "Merge Request Hook approval": mergeRequestBody("approval"),
  "Merge Request Hook unapproval": mergeRequestBody("unapproval"),
  "Merge Request Hook open": mergeRequestOpenedOrUpdatedBody("created"),
  "Merge Request Hook update": mergeRequestUpdatedBody,
  "Merge Request Hook merge": mergeRequestBody("merged"),
  "Merge Request Hook close": mergeRequestBody("closed"),
  "Merge Request Hook reopen": mergeRequestBody("reopened"),
  "Wiki Page Hook create": wikiPageBody("created"),
  "Wiki Page Hook update": wikiPageBody("updated"),
  "Job Hook": buildBody,
  "Build Hook": buildBody,
  "Pipeline Hook": pipelineBody,
  "Release Hook": releaseBody,
  "Feature Flag Hook": featureFlagBody,
  "Resource Access Token Hook": accessTokenBody,
  "Deployment Hook": deploymentBody,
};

/** Without the title, the topic ends at the number (Zulip strips the space the template leaves). */
function mergeRequestTopic(p: Payload, mr: unknown, withTitle: boolean): string {
  const iid = int(mr, "iid");
  return withTitle ? pullRequestOrIssueTopic(repoName(p), "MR", iid, str(mr, "title")) : `${repoName(p)} / MR #${iid}`;
}

function topicFor(event: string, p: Payload, useMergeRequestTitle: boolean): string {
  if (event === "Push Hook") return branchTopic(repoName(p), branchName(p));
  if (event === "Job Hook" || event === "Build Hook") return branchTopic(str(p, "repository", "name"), branchName(p));
  if (event === "Pipeline Hook") return branchTopic(repoName(p), str(attr(p), "ref").replaceAll("refs/heads/", ""));
  if (event.startsWith("Merge Request Hook")) {
    return mergeRequestTopic(p, attr(p), useMergeRequestTitle);
  }
  if (event.startsWith("Issue Hook") || event.startsWith("Confidential Issue Hook")) {
    return pullRequestOrIssueTopic(repoName(p), "issue", int(attr(p), "iid"), str(attr(p), "title"));
  }
  if (event === "Note Hook Issue" || event === "Confidential Note Hook Issue") {
    return pullRequestOrIssueTopic(repoName(p), "issue", int(p, "issue", "iid"), str(p, "issue", "title"));
  }
  if (event.endsWith("Note Hook DesignManagement::Design")) {
    return `${repoName(p)} / design ${str(attr(p), "position", "new_path").split("/").pop()}`;
  }
  if (event === "Note Hook MergeRequest") {
    return mergeRequestTopic(p, field(p, "merge_request"), useMergeRequestTitle);
  }
  if (event === "Note Hook Snippet") {
    return pullRequestOrIssueTopic(repoName(p), "snippet", int(p, "snippet", "id"), str(p, "snippet", "title"));
  }
  if (event === "Resource Access Token Hook" && truthy(field(p, "group"))) return str(p, "group", "group_name");
  if (event === "Deployment Hook") return `${repoName(p)} / ${str(p, "environment")}`;
  return repoName(p);
}

/** Python's `str.title()`: a letter after a non-letter is capitalized, every other letter lowered. */
function titleCase(text: string): string {
  let out = "";
  let afterLetter = false;
  for (const c of text) {
    const isLetter = c.toLowerCase() !== c.toUpperCase();
    out += isLetter ? (afterLetter ? c.toLowerCase() : c.toUpperCase()) : c;
    afterLetter = isLetter;
  }
  return out;
}

/** The full event name, or null for a push to a branch the URL does not follow. */
function eventOf(header: string, p: Payload, branches: string | undefined): string | null {
  let event = header;
  if (event === "System Hook") {
    // System hooks name the event in the payload, the way project hooks' headers would.
    const name = has(p, "event_name") ? str(p, "event_name") : str(p, "object_kind");
    event = `${titleCase(name.split("__")[0]!.replaceAll("_", " "))} Hook`;
  }
  if (["Confidential Issue Hook", "Issue Hook", "Merge Request Hook", "Wiki Page Hook"].includes(event)) {
    const action = field(attr(p), "action");
    event = `${event} ${action === undefined ? "open" : str(attr(p), "action")}`;
  } else if (event === "Confidential Note Hook" || event === "Note Hook") {
    event = `${event} ${str(attr(p), "noteable_type")}`;
  } else if (event === "Push Hook" && branches !== undefined && !branchNotifiable(branchName(p), branches)) {
    return null;
  }
  if (!Object.hasOwn(BODIES, event)) throw new UnsupportedEvent(event);
  return event;
}

export const gitlab: Integration = {
  name: "gitlab",
  displayName: "GitLab",
  handle({ json, headers, params }) {
    const header = eventHeader(headers, "X-GitLab-Event");
    const event = eventOf(header, json, params.branches);
    if (event === null) return { messages: [] };
    const customTopic = params.topic;
    let content = BODIES[event]!(json, customTopic !== undefined);
    // The custom topic no longer says which project this is, so the body does.
    if (customTopic) content = `[[${repoName(json)}](${projectHomepage(json)})] ${content}`;
    return { event, messages: [{ topic: topicFor(event, json, useMergeRequestTitle(params.use_merge_request_title)), content }] };
  },
};

/** A JSON boolean, true unless it says false. */
function useMergeRequestTitle(raw: string | undefined): boolean {
  return raw === undefined || raw.trim() !== "false";
}
