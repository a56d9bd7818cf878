import { uptimerobot } from "../../../src/integrations/uptimerobot.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(uptimerobot);
