/** Insping website monitoring: a check's state changes, all under the topic `insping`. */
import { field, int, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * `2017-12-29T17:23:46.457990+00:00` as C's `%c` shows it, `Fri Dec 29 17:23:46 2017`. Zulip reads
 * only UTC times written this way; others are refused.
 */
function cTime(timestamp: string): string {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2}):(\d{1,2}):(\d{1,2})\.\d{1,6}\+00:00$/.exec(timestamp);
  if (!m) throw new AnomalousPayload();
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 61) {
    throw new AnomalousPayload();
  }
  const two = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[date.getUTCDay()]} ${MONTHS[month - 1]} ${String(day).padStart(2, " ")} ${two(hour)}:${two(minute)}:${two(second)} ${year}`;
}

export const insping: Integration = {
  name: "insping",
  displayName: "Insping",
  handle(request) {
    const data = field(request.json, "webhook_event_data");
    const content =
      `State changed to **${str(data, "check_state_name")}**:\n` +
      `* **URL**: ${str(data, "request_url")}\n` +
      `* **Response time**: ${int(data, "response_time")} ms\n` +
      `* **Timestamp**: ${cTime(str(data, "request_start_time"))}`;
    return { messages: [{ topic: "insping", content }] };
  },
};
