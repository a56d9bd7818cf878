import { opsgenie } from "../../../src/integrations/opsgenie.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(opsgenie);
