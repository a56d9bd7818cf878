import { sentry } from "../../../src/integrations/sentry.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(sentry);
