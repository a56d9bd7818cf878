import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  branchNotifiable,
  commitCommentMessage,
  commitsList,
  committers,
  createBranchMessage,
  issueLabelMessage,
  issueMessage,
  issueMilestoneMessage,
  pullRequestMessage,
  pullRequestOrIssueTopic,
  pushCommitsMessage,
  pushTagMessage,
  releaseMessageWithoutUser,
  setupMessage,
  type Commit,
} from "../../../src/integrations/git.js";

const sha = "0123456789abcdef0123456789abcdef01234567";
const commit = (name: string, message = "Fix it\n\nlonger text"): Commit => ({ name, sha, url: "https://x/c", message });

describe("push messages", () => {
  test("one committer who is the pusher: no 'Commits by' line; first line of each message", () => {
    assert.equal(
      pushCommitsMessage({ userName: "ann", compareUrl: "https://x/cmp", branch: "main", commits: [commit("ann")] }),
      "ann [pushed](https://x/cmp) 1 commit to branch main.\n\n* Fix it ([0123456789a](https://x/c))",
    );
  });

  test("several committers sorted by count then name, the fourth and later summed as others", () => {
    const commits = ["bo", "cy", "cy", "al", "al", "dee", "eve"].map((n) => commit(n));
    assert.deepEqual(committers(commits), [
      ["al", 2],
      ["cy", 2],
      ["bo", 1],
      ["others", 2],
    ]);
    const text = pushCommitsMessage({ userName: "al", compareUrl: null, branch: "b", commits });
    assert.ok(text.startsWith("al pushed 7 commits to branch b. Commits by al (2), cy (2), bo (1) and others (2).\n\n* Fix it"));
  });

  test("force push, deleted branch, branch without commits, repository named", () => {
    assert.equal(
      pushCommitsMessage({ userName: "a", compareUrl: "u", branch: "b", commits: [commit("a")], forcePush: true }).split("\n")[0],
      "a [force pushed](u) 1 commit to branch b.",
    );
    assert.equal(pushCommitsMessage({ userName: "a", compareUrl: "u", branch: "b", commits: [], deleted: true }), "a [deleted](u) the branch b.");
    assert.equal(pushCommitsMessage({ userName: "a", compareUrl: "u", branch: "b", commits: [] }), "a [pushed](u) the branch b.");
    assert.equal(pushCommitsMessage({ userName: "a", branch: "b", commits: [] }), "a pushed the branch b.");
    assert.equal(
      pushCommitsMessage({ userName: "a", branch: "b", commits: [commit("a")], repositoryName: "r", repositoryUrl: "ru" }).split("\n")[0],
      "a pushed 1 commit to branch b of [r](ru).",
    );
  });

  test("more than 20 commits: 20 listed and the rest counted; a truncated payload says 'and more'", () => {
    const many = Array.from({ length: 23 }, () => commit("a"));
    const lines = commitsList(many).split("\n");
    assert.equal(lines.length, 21);
    assert.equal(lines[20], "[and 3 more commit(s)]");
    assert.equal(commitsList([commit("a")], true).split("\n")[1], "[and more commit(s)]");
  });

  test("branches filter", () => {
    assert.equal(branchNotifiable("main", undefined), true);
    assert.equal(branchNotifiable("main", "dev, main"), true);
    assert.equal(branchNotifiable("mai", "main"), false);
  });
});

describe("pull request and issue messages", () => {
  test("branches, assignee and description", () => {
    assert.equal(
      pullRequestMessage({ userName: "a", action: "opened", url: "u", number: 3, targetBranch: "f", baseBranch: "m", assignee: "b", message: "Body" }),
      "a opened [PR #3](u) from `f` to `m` (assigned to b):\n\n~~~ quote\nBody\n~~~",
    );
    assert.equal(pullRequestMessage({ userName: "a", action: "opened", url: "u", number: 3, assignees: ["x", "y", "z"] }), "a opened [PR #3](u) (assigned to x, y and z).");
  });

  test("a title ending in punctuation gets no period; assigned names who", () => {
    assert.equal(pullRequestMessage({ userName: "a", action: "closed", url: "u", number: 1, title: "Fix?" }), "a closed [PR #1 Fix?](u)");
    assert.equal(pullRequestMessage({ userName: "a", action: "closed", url: "u", number: 1, title: "Fix" }), "a closed [PR #1 Fix](u).");
    assert.equal(issueMessage({ userName: "a", action: "unassigned", assigneeUpdated: "b", url: "u", number: 2 }), "a unassigned b from [issue #2](u).");
    assert.equal(pullRequestMessage({ userName: "a", action: "approval", url: "u", number: 1, type: "MR" }), "a added their approval for [MR #1](u).");
  });

  test("labels, milestones, topic", () => {
    assert.equal(
      issueLabelMessage({ userName: "a", userUrl: "au", action: "removed", url: "u", number: 4, label: "bug" }),
      "[a](au) removed the bug label from [Issue #4](u).",
    );
    assert.equal(
      issueMilestoneMessage({ userName: "a", userUrl: "au", action: "added", url: "u", number: 4, milestone: "m", milestoneUrl: "mu", title: "T" }),
      "[a](au) added milestone [m](mu) to [issue #4 T](u).",
    );
    assert.equal(pullRequestOrIssueTopic("repo", "PR", 5, "Title"), "repo / PR #5 Title");
  });
});

describe("other messages", () => {
  test("tags, branches, comments, releases, setup", () => {
    assert.equal(pushTagMessage("a", "v1"), "a pushed tag v1.");
    assert.equal(pushTagMessage("a", "v1.", "tu", "removed"), "a removed tag [v1.](tu)");
    assert.equal(createBranchMessage("a", null, "b"), "a created b branch.");
    assert.equal(createBranchMessage("a", "u", "b"), "a created [b](u) branch.");
    assert.equal(commitCommentMessage("a", "[commented](cu)", "u", sha, "Nice"), "a [commented](cu) on [0123456789a](u):\n~~~ quote\nNice\n~~~");
    assert.equal(commitCommentMessage("a", "commented", "u", sha), "a commented on [0123456789a](u).");
    assert.equal(releaseMessageWithoutUser("published", "v1", "One", null), "Release One for tag v1 was published.");
    assert.equal(setupMessage("GitHub", "a"), "GitHub webhook has been successfully configured by a.");
    assert.equal(setupMessage("Gogs"), "Gogs webhook has been successfully configured.");
  });
});
