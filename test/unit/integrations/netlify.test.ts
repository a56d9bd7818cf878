import { netlify } from "../../../src/integrations/netlify.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(netlify);
