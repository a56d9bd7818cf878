import { pagerduty } from "../../../src/integrations/pagerduty.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(pagerduty);
