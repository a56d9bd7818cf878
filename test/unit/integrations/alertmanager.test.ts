import { alertmanager } from "../../../src/integrations/alertmanager.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(alertmanager);
