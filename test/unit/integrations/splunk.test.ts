import { splunk } from "../../../src/integrations/splunk.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(splunk);
