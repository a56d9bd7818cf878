import { zendesk } from "../../../src/integrations/zendesk.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(zendesk);
