/**
 * The message and topic builders every git-hosting integration shares (GitHub, Gogs, Gitea,
 * GitLab, Bitbucket, Azure DevOps), so that a push or a pull request reads the same whichever
 * service sent it, exactly as Zulip words it.
 */
import { AnomalousPayload, MissingEventHeader } from "./types.js";

/** Past this many commits a push lists the first ones and counts the rest. */
export const COMMITS_LIMIT = 20;
/** Past this many committers a push names the first ones and sums the rest as "others". */
export const COMMITTERS_LIMIT = 3;
/** The sha git services send for the missing side of a created or deleted ref. */
export const EMPTY_SHA = "0000000000000000000000000000000000000000";

/** Python's `string.punctuation`: a title ending in one of these gets no period after it. */
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

function endsInPunctuation(text: string): boolean {
  return text.length > 0 && PUNCTUATION.includes(text[text.length - 1]!);
}

export interface Commit {
  /** Who the commit is credited to, as the "Commits by" line names them. */
  name: string;
  sha: string;
  url?: string | null;
  message: string;
}

export function shortSha(sha: string): string {
  return sha.slice(0, 11);
}

/** A quoted block of text from the service (a description, a comment), as the body's tail. */
export function quoteBlock(message: string): string {
  return `\n~~~ quote\n${message}\n~~~`;
}

export function branchTopic(repo: string, branch: string): string {
  return `${repo} / ${branch}`;
}

/** `type` is "PR", "MR", "issue"… as the topic spells it. */
export function pullRequestOrIssueTopic(repo: string, type: string, id: number | string, title: string): string {
  return `${repo} / ${type} #${id} ${title}`;
}

export function releaseTopic(repo: string, tag: string, title: string): string {
  return `${repo} / ${tag} ${title}`;
}

/** A URL's `branches` option: a comma list of branch names (spaces around names ignored); absent means every branch. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  if (branches === undefined) return true;
  return branches.split(",").some((b) => b.trim() === branch);
}

/** One line per commit (first line of its message), up to COMMITS_LIMIT, then a count of the rest. */
export function commitsList(commits: readonly Commit[], isTruncated = false): string {
  let text = "";
  for (const c of commits.slice(0, COMMITS_LIMIT)) {
    const firstLine = c.message.split("\n", 1)[0];
    text += `* ${firstLine} ([${shortSha(c.sha)}](${pyStr(c.url)}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) text += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (isTruncated) text += "[and more commit(s)]";
  return text.trimEnd();
}

/** Committers by number of commits (ties by name), the tail past COMMITTERS_LIMIT folded into "others". */
export function committers(commits: readonly Commit[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || compareCodePoints(a[0], b[0]));
  if (sorted.length <= COMMITTERS_LIMIT) return sorted;
  const others = sorted.slice(COMMITTERS_LIMIT).reduce((sum, [, n]) => sum + n, 0);
  return [...sorted.slice(0, COMMITTERS_LIMIT), ["others", others]];
}

/** Python orders strings by code point, not by UTF-16 unit or locale. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** Python's rendering of an absent value in a template, which some messages show. */
function pyStr(value: string | null | undefined): string {
  return value === null || value === undefined ? "None" : value;
}

export interface PushOptions {
  userName: string;
  compareUrl?: string | null;
  branch: string;
  commits: readonly Commit[];
  /** The service sent only some of the commits: the list ends with "[and more commit(s)]". */
  isTruncated?: boolean;
  deleted?: boolean;
  forcePush?: boolean;
  /** Both given: the branch is named "of [repository](url)". */
  repositoryName?: string;
  repositoryUrl?: string;
}

/** A push of commits to a branch; without commits, the branch pushed or deleted. */
export function pushCommitsMessage(o: PushOptions): string {
  if (o.commits.length === 0 && o.deleted) {
    return `${o.userName} [deleted](${pyStr(o.compareUrl)}) the branch ${o.branch}.`;
  }
  const pushType = o.forcePush ? "force pushed" : "pushed";
  if (o.commits.length === 0) {
    return o.compareUrl
      ? `${o.userName} [${pushType}](${o.compareUrl}) the branch ${o.branch}.`
      : `${o.userName} ${pushType} the branch ${o.branch}.`;
  }
  const n = o.commits.length;
  const counted = `${n} commit${n > 1 ? "s" : ""}`;
  const pushed = o.compareUrl ? `[${pushType}](${o.compareUrl}) ${counted}` : `${pushType} ${counted}`;
  const where = o.repositoryName && o.repositoryUrl ? ` of [${o.repositoryName}](${o.repositoryUrl})` : "";
  const base = `${o.userName} ${pushed} to branch ${o.branch}${where}.`;
  const list = commitsList(o.commits, o.isTruncated);
  const people = committers(o.commits);
  if (people.length === 1 && people[0]![0] === o.userName) return `${base}\n\n${list}`.trimEnd();
  return `${base} Commits by ${committersText(people)}.\n\n${list}`.trimEnd();
}

function committersText(people: [string, number][]): string {
  const parts = people.map(([name, n]) => `${name} (${n})`);
  if (parts.length === 1) return parts[0]!;
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

export function forcePushMessage(userName: string, url: string, branch: string, head: string): string {
  return `${userName} [force pushed](${url}) to branch ${branch}. Head is now ${head}.`;
}

export function createBranchMessage(userName: string, url: string | null, branch: string): string {
  return url === null ? `${userName} created ${branch} branch.` : `${userName} created [${branch}](${url}) branch.`;
}

export function removeBranchMessage(userName: string, branch: string): string {
  return `${userName} deleted branch ${branch}.`;
}

export interface PullRequestOptions {
  userName: string;
  /** "opened", "merged"…; "approval"/"unapproval" read as added/removed their approval for. */
  action: string;
  url: string;
  number?: number | string | null;
  /** Both given: "from `target` to `base`". */
  targetBranch?: string | null;
  baseBranch?: string | null;
  /** A description or comment, quoted after a colon. */
  message?: string | null;
  assignee?: string | null;
  /** Several assignees: "(assigned to a, b and c)"; wins over `assignee`. */
  assignees?: readonly string[];
  /** For the actions "assigned"/"unassigned": who was (un)assigned, named after the action. */
  assigneeUpdated?: string | null;
  reviewer?: string | null;
  /** "PR" unless given ("MR", "issue", "PR review"…). */
  type?: string;
  /** Named inside the link, which the custom-topic variants do since the topic no longer says it. */
  title?: string | null;
}

const ACTION_WORDS: Record<string, string> = {
  approval: "added their approval for",
  unapproval: "removed their approval for",
};

/** The sentence for a pull request, merge request or issue event. */
export function pullRequestMessage(o: PullRequestOptions): string {
  const action = ACTION_WORDS[o.action] ?? o.action;
  const who =
    o.action === "assigned" ? ` ${pyStr(o.assigneeUpdated)} to` : o.action === "unassigned" ? ` ${pyStr(o.assigneeUpdated)} from` : "";
  const id = o.number !== undefined && o.number !== null ? ` #${o.number}` : "";
  const hasTitle = o.title !== undefined && o.title !== null;
  let text = `${o.userName} ${action}${who} [${o.type ?? "PR"}${id}${hasTitle ? ` ${o.title}` : ""}](${o.url})`;
  const branches = Boolean(o.targetBranch && o.baseBranch);
  if (branches) text += ` from \`${o.targetBranch}\` to \`${o.baseBranch}\``;
  const assignees = o.assignees && o.assignees.length > 0 ? o.assignees : undefined;
  if (assignees) text += ` (assigned to ${namesText(assignees)})`;
  else if (o.assignee) text += ` (assigned to ${o.assignee})`;
  else if (o.reviewer) text += ` (assigned reviewers: ${o.reviewer})`;
  const punctuation = o.message ? ":" : ".";
  if (assignees || o.assignee || branches || !hasTitle || !endsInPunctuation(o.title!)) text += punctuation;
  if (o.message) text += "\n" + quoteBlock(o.message);
  return text.trimEnd();
}

function namesText(names: readonly string[]): string {
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

export type IssueOptions = Omit<PullRequestOptions, "type" | "targetBranch" | "baseBranch" | "reviewer">;

export function issueMessage(o: IssueOptions): string {
  return pullRequestMessage({ ...o, type: "issue" });
}

export interface IssueLabelOptions {
  userName: string;
  userUrl: string;
  /** "added" or "removed". */
  action: string;
  url: string;
  number: number | string;
  label: string;
  title?: string | null;
}

export function issueLabelMessage(o: IssueLabelOptions): string {
  const preposition = o.action === "added" ? "to" : "from";
  const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : "";
  return `[${o.userName}](${o.userUrl}) ${o.action} the ${o.label} label ${preposition} [Issue #${o.number}${title}](${o.url}).`;
}

export interface IssueMilestoneOptions {
  userName: string;
  userUrl: string;
  /** "added" or "removed". */
  action: string;
  url: string;
  number: number | string;
  milestone: string;
  milestoneUrl: string;
  title?: string | null;
}

export function issueMilestoneMessage(o: IssueMilestoneOptions): string {
  const preposition = o.action === "added" ? "to" : "from";
  const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : "";
  return `[${o.userName}](${o.userUrl}) ${o.action} milestone [${o.milestone}](${o.milestoneUrl}) ${preposition} [issue #${o.number}${title}](${o.url}).`;
}

/** A tag pushed (or removed…); a period follows unless the tag name ends in punctuation. */
export function pushTagMessage(userName: string, tag: string, tagUrl?: string | null, action = "pushed"): string {
  const tagPart = tagUrl ? `[${tag}](${tagUrl})` : tag;
  const text = `${userName} ${action} tag ${tagPart}`;
  return endsInPunctuation(tag) ? text : `${text}.`;
}

/** `action` is already worded, often a link: "[commented](url)". */
export function commitCommentMessage(userName: string, action: string, commitUrl: string, sha: string, message?: string | null): string {
  const text = `${userName} ${action} on [${shortSha(sha)}](${commitUrl})`;
  return message ? `${text}:${quoteBlock(message)}` : `${text}.`;
}

export function releaseMessage(userName: string, action: string, tag: string, releaseName: string, url: string): string {
  return `${userName} ${action} release [${releaseName}](${url}) for tag ${tag}.`;
}

/** A release message for services that do not say who acted. */
export function releaseMessageWithoutUser(action: string, tag: string, releaseName: string, url?: string | null): string {
  return url ? `Release [${releaseName}](${url}) for tag ${tag} was ${action}.` : `Release ${releaseName} for tag ${tag} was ${action}.`;
}

/** The answer to a service's test delivery ("ping"). */
export function setupMessage(integration: string, userName?: string | null): string {
  return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ""}.`;
}

/**
 * Reading untrusted JSON the way Zulip's validators do: a value of the wrong type is an
 * anomalous payload, not a crash. `field` walks objects only, so a hostile payload cannot reach
 * prototypes.
 */
export function field(value: unknown, ...path: string[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function str(value: unknown, ...path: string[]): string {
  const v = field(value, ...path);
  if (typeof v !== "string") throw new AnomalousPayload();
  return v;
}

/** A string, or null where the service sends null (or leaves the key out). */
export function optStr(value: unknown, ...path: string[]): string | null {
  const v = field(value, ...path);
  if (v === null || v === undefined) return null;
  if (typeof v !== "string") throw new AnomalousPayload();
  return v;
}

export function int(value: unknown, ...path: string[]): number {
  const v = field(value, ...path);
  if (typeof v !== "number" || !Number.isInteger(v)) throw new AnomalousPayload();
  return v;
}

export function bool(value: unknown, ...path: string[]): boolean {
  const v = field(value, ...path);
  if (typeof v !== "boolean") throw new AnomalousPayload();
  return v;
}

export function list(value: unknown, ...path: string[]): unknown[] {
  const v = field(value, ...path);
  if (!Array.isArray(v)) throw new AnomalousPayload();
  return v;
}

/** Python's truthiness, which the views test optional fields with. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** The event header's value, or MissingEventHeader naming it as the service spells it. */
export function eventHeader(headers: Record<string, string>, name: string): string {
  const v = headers[name.toLowerCase()];
  if (v === undefined) throw new MissingEventHeader(name);
  return v;
}
