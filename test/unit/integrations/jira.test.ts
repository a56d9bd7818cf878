import { jira } from "../../../src/integrations/jira.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(jira);
