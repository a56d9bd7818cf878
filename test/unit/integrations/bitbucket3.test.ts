import { bitbucket3 } from "../../../src/integrations/bitbucket3.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(bitbucket3);
