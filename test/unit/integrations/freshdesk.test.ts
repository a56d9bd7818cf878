import { freshdesk } from "../../../src/integrations/freshdesk.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(freshdesk);
