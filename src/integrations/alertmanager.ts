/**
 * Prometheus Alertmanager: alerts grouped into one message per topic and status. The URL's
 * `name` picks the label (or annotation) that names the topic, `desc` the one that describes
 * each alert.
 */
import { display, payloadObject } from "./format.js";
import { field, list, str } from "./git.js";
import type { Integration, WebhookMessage } from "./types.js";

export const alertmanager: Integration = {
  name: "alertmanager",
  displayName: "Alertmanager",
  handle(request) {
    const payload = payloadObject(request.json);
    const nameField = request.params.name ?? "instance";
    const descField = request.params.desc ?? "alertname";
    const byTopic = new Map<string, { firing: string[]; resolved: string[] }>();
    for (const alert of list(payload, "alerts")) {
      const labelled = (key: string) => field(alert, "labels", key) ?? field(alert, "annotations", key);
      const name = display(labelled(nameField) ?? "(unknown)");
      const desc = display(labelled(descField) ?? `<missing field: ${descField}>`);
      const url = str(alert, "generatorURL").replaceAll("tab=1", "tab=0");
      const status = str(alert, "status") === "firing" ? "firing" : "resolved";
      let groups = byTopic.get(name);
      if (!groups) byTopic.set(name, (groups = { firing: [], resolved: [] }));
      groups[status].push(`${desc} ([source](${url}))`);
    }
    const messages: WebhookMessage[] = [];
    for (const [topic, groups] of byTopic) {
      for (const status of ["firing", "resolved"] as const) {
        const lines = groups[status];
        if (lines.length === 0) continue;
        const title = status === "firing" ? ":alert: **FIRING**" : ":squared_ok: **Resolved**";
        const content = lines.length === 1 ? `${title} ${lines[0]}` : `${title}\n${lines.map((l) => `* ${l}`).join("\n")}`;
        messages.push({ topic, content });
      }
    }
    return { messages };
  },
};
