import { zabbix } from "../../../src/integrations/zabbix.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(zabbix);
