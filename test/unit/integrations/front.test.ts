import { front } from "../../../src/integrations/front.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(front);
