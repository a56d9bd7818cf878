import { semaphore } from "../../../src/integrations/semaphore.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(semaphore);
