import { travis } from "../../../src/integrations/travis.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(travis);
