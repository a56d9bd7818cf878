import { clubhouse } from "../../../src/integrations/clubhouse.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(clubhouse);
