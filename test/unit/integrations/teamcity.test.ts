import { teamcity } from "../../../src/integrations/teamcity.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(teamcity);
