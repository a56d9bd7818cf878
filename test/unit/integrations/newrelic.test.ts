import { newrelic } from "../../../src/integrations/newrelic.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(newrelic);
