import { gogs } from "../../../src/integrations/gogs.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(gogs);
