import { harbor } from "../../../src/integrations/harbor.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(harbor);
