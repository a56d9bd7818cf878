import { basecamp } from "../../../src/integrations/basecamp.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(basecamp);
