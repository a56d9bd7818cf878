import { grafana } from "../../../src/integrations/grafana.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(grafana);
