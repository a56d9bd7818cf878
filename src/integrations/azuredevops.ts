/**
 * Azure DevOps service hooks: the payload's `eventType` names the event. Pull request messages
 * always name the title; a merge is reported only once it has succeeded.
 */
import {
  branchNotifiable,
  branchTopic,
  field,
  int,
  list,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  str,
  truthy,
} from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

type Payload = unknown;

const resource = (p: Payload) => field(p, "resource");
const repoName = (p: Payload) => str(resource(p), "repository", "name");
const repoUrl = (p: Payload) => str(resource(p), "repository", "remoteUrl");
const refUpdate = (p: Payload) => list(resource(p), "refUpdates")[0];
const pushBranch = (p: Payload) => str(refUpdate(p), "name").replaceAll("refs/heads/", "");
const refBranch = (p: Payload, field: string) => str(resource(p), field).replaceAll("refs/heads/", "");

function pullRequestFields(p: Payload) {
  return {
    userName: str(resource(p), "createdBy", "displayName"),
    url: str(resource(p), "_links", "web", "href"),
    number: int(resource(p), "pullRequestId"),
    title: str(resource(p), "title"),
  };
}

function pushBody(p: Payload): string {
  const update = refUpdate(p);
  const commits = (field(resource(p), "commits") === undefined ? [] : list(resource(p), "commits")).map((c) => ({
    name: str(c, "author", "name"),
    sha: str(c, "commitId"),
    url: `${repoUrl(p)}/commit/${str(c, "commitId")}`,
    message: str(c, "comment"),
  }));
  return pushCommitsMessage({
    userName: str(resource(p), "pushedBy", "displayName"),
    compareUrl: `${repoUrl(p)}/branchCompare?baseVersion=GC${str(update, "oldObjectId")}&targetVersion=GC${str(update, "newObjectId")}&_a=files`,
    branch: pushBranch(p),
    commits,
  });
}

const BODIES: Record<string, (p: Payload) => string> = {
  "git.push": pushBody,
  "git.pullrequest.created": (p) =>
    pullRequestMessage({
      ...pullRequestFields(p),
      action: "created",
      targetBranch: refBranch(p, "sourceRefName"),
      baseBranch: refBranch(p, "targetRefName"),
      message: truthy(field(resource(p), "description")) ? str(resource(p), "description") : null,
    }),
  "git.pullrequest.merged": (p) =>
    pullRequestMessage({
      ...pullRequestFields(p),
      action: "merged",
      targetBranch: refBranch(p, "sourceRefName"),
      baseBranch: refBranch(p, "targetRefName"),
    }),
  "git.pullrequest.updated": (p) =>
    pullRequestMessage({ ...pullRequestFields(p), action: "updated", message: str(p, "detailedMessage", "markdown") }),
};

/** Azure DevOps also sends "merged" for a merge attempt (a conflict found, or none after an update). */
function mergeSucceeded(p: Payload): boolean {
  return str(resource(p), "status") === "completed" && str(resource(p), "mergeStatus") === "succeeded";
}

export const azuredevops: Integration = {
  name: "azuredevops",
  displayName: "AzureDevOps",
  handle({ json: p, params }) {
    const event = str(p, "eventType");
    // Zulip passes no event type on, so the URL's event filters do not apply here.
    if (event === "git.push" && params.branches !== undefined && !branchNotifiable(pushBranch(p), params.branches)) {
      return { messages: [] };
    }
    if (event === "git.pullrequest.merged" && !mergeSucceeded(p)) return { messages: [] };
    if (!Object.hasOwn(BODIES, event)) throw new UnsupportedEvent(event);
    const topic =
      event === "git.push" ? branchTopic(repoName(p), pushBranch(p)) : pullRequestOrIssueTopic(repoName(p), "PR", pullRequestFields(p).number, pullRequestFields(p).title);
    return { messages: [{ topic, content: BODIES[event]!(p) }] };
  },
};
