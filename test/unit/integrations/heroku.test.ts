import { heroku } from "../../../src/integrations/heroku.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(heroku);
