/** Statuspage incident and component notifications, one topic per incident or component with the page's status. */
import { field, list, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

export const statuspage: Integration = {
  name: "statuspage",
  displayName: "Statuspage",
  handle(request) {
    const p = request.json;
    const pageStatus = str(p, "page", "status_description");
    if (field(p, "incident") !== undefined) {
      const name = str(p, "incident", "name");
      const content =
        `**${name}**:\n* State: **${str(p, "incident", "status")}**\n` +
        `* Description: ${str(list(p, "incident", "incident_updates")[0], "body")}`;
      return { event: "incident", messages: [{ topic: `${name}: ${pageStatus}`, content }] };
    }
    if (field(p, "component") !== undefined) {
      const name = str(p, "component", "name");
      const content =
        `**${name}** has changed status from **${str(p, "component_update", "old_status")}** ` +
        `to **${str(p, "component_update", "new_status")}**.`;
      return { event: "component", messages: [{ topic: `${name}: ${pageStatus}`, content }] };
    }
    throw new AnomalousPayload();
  },
};
