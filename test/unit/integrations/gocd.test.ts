import { gocd } from "../../../src/integrations/gocd.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(gocd);
