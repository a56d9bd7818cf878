import { insping } from "../../../src/integrations/insping.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(insping);
