import { github } from "../../../src/integrations/github.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(github);
