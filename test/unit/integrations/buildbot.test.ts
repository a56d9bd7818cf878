import { buildbot } from "../../../src/integrations/buildbot.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(buildbot);
