import { gitlab } from "../../../src/integrations/gitlab.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(gitlab);
