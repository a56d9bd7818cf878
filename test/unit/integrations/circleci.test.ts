import { circleci } from "../../../src/integrations/circleci.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(circleci);
