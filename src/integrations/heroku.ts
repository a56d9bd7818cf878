/**
 * Heroku: the deploy hook's form (app, user, head, url, git_log), one message per deploy in the
 * app's topic.
 */
import { AnomalousPayload, type Integration } from "./types.js";

export const heroku: Integration = {
  name: "heroku",
  displayName: "Heroku",
  handle(request) {
    const field = (name: string) => {
      const value = request.form[name];
      if (value === undefined) throw new AnomalousPayload();
      return value;
    };
    const app = field("app");
    const content =
      `${field("user")} deployed version ${field("head")} of [${app}](${field("url")}):\n\n` +
      `\`\`\` quote\n${field("git_log")}\n\`\`\``;
    return { messages: [{ topic: app, content }] };
  },
};
