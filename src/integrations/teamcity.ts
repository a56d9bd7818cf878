/**
 * TeamCity build notifications (the tcWebhooks plugin's legacy JSON format), one topic per build
 * configuration and branch, as Zulip words them.
 */
import { field, list, str } from "./git.js";
import { AnomalousPayload, type Integration } from "./types.js";

function property(build: unknown, name: string): string | undefined {
  for (const p of list(build, "teamcityProperties")) if (str(p, "name") === name) return str(p, "value");
  return undefined;
}

function status(build: unknown): string {
  const delta = str(build, "buildResultDelta");
  switch (str(build, "buildResult")) {
    case "success":
      return delta === "fixed" ? "has been fixed! :thumbs_up:" : "was successful! :thumbs_up:";
    case "failure":
      return delta === "broken"
        ? `is broken with status ${str(build, "buildStatus")}! :thumbs_down:`
        : `is still broken with status ${str(build, "buildStatus")}! :thumbs_down:`;
    case "running":
      return "has started.";
    default:
      throw new AnomalousPayload();
  }
}

export const teamcity: Integration = {
  name: "teamcity",
  displayName: "TeamCity",
  handle(request) {
    const build = field(request.json, "build");
    // Other payload formats (a misconfigured plugin) post nothing; Zulip tells the bot's owner instead.
    if (build === undefined) return { messages: [] };
    const name = str(build, "buildFullName");
    const url = str(build, "buildStatusUrl");
    const content =
      `${name} build ${str(build, "buildNumber")} ${status(build)} ` +
      `See [changes](${url}&tab=buildChangesDiv) and [build log](${url}).`;
    const branch = field(build, "branchDisplayName") === undefined ? undefined : str(build, "branchDisplayName");
    // Zulip sends a personal build as a direct message to the Zulip user who started it, never to the channel.
    if (property(build, "env.BUILD_IS_PERSONAL") === "true") return { messages: [] };
    return { messages: [{ topic: branch === undefined ? name : `${name} (${branch})`, content }] };
  },
};
