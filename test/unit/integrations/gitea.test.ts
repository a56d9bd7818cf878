import { gitea } from "../../../src/integrations/gitea.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(gitea);
