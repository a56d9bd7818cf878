import { githubSponsors } from "../../../src/integrations/github.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(githubSponsors);
