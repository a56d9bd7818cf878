import { azuredevops } from "../../../src/integrations/azuredevops.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(azuredevops);
