/**
 * UptimeRobot: a monitor going down or coming back up. The event filtered on is `up` or `down`.
 */
import { payloadObject } from "./format.js";
import { str } from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

export const uptimerobot: Integration = {
  name: "uptimerobot",
  displayName: "UptimeRobot",
  handle(request) {
    const payload = payloadObject(request.json);
    const type = str(payload, "alert_type_friendly_name");
    const monitor = `${str(payload, "monitor_friendly_name")} (${str(payload, "monitor_url")})`;
    const details = str(payload, "alert_details");
    let content: string;
    if (type === "Up") {
      content = `${monitor} is back UP (${details}).\nIt was down for ${str(payload, "alert_friendly_duration")}.`;
    } else if (type === "Down") {
      content = `${monitor} is DOWN (${details}).`;
    } else {
      throw new UnsupportedEvent(type);
    }
    return { event: type.toLowerCase(), messages: [{ topic: str(payload, "monitor_friendly_name"), content }] };
  },
};
