import { updown } from "../../../src/integrations/updown.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(updown);
