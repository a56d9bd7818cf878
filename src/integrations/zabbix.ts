/**
 * Zabbix: a trigger's alert, sent by the media script Zulip documents, in the host's topic.
 */
import { payloadObject } from "./format.js";
import { str } from "./git.js";
import type { Integration } from "./types.js";

export const zabbix: Integration = {
  name: "zabbix",
  displayName: "Zabbix",
  handle(request) {
    const payload = payloadObject(request.json);
    const hostname = str(payload, "hostname");
    const content =
      `${str(payload, "status")} (${str(payload, "severity")}) alert on [${hostname}](${str(payload, "link")}):\n` +
      `* ${str(payload, "trigger")}\n* ${str(payload, "item")}`;
    return { messages: [{ topic: hostname, content }] };
  },
};
