import { jira } from "../../../src/integrations/jira.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

const needsUserLookup = "the assignee is named by a Zulip account found by email, which a pure integration cannot look up";

testWebhookCases(jira, {
  skip: {
    test_comment_edited: needsUserLookup,
    "test_commented#1": needsUserLookup,
    "test_commented#2": needsUserLookup,
    test_commented_with_two_full_links: needsUserLookup,
    "test_reassigned#1": needsUserLookup,
    "test_reassigned#2": needsUserLookup,
  },
});
