import { bitbucket2 } from "../../../src/integrations/bitbucket2.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(bitbucket2);
