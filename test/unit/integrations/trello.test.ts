import { trello } from "../../../src/integrations/trello.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(trello);
