import { rundeck } from "../../../src/integrations/rundeck.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(rundeck);
