import { statuspage } from "../../../src/integrations/statuspage.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(statuspage);
