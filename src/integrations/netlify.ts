/** Netlify deploy notifications, one topic per branch, the event named by `X-Netlify-Event`. */
import { eventHeader, str } from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

const STATES: Record<string, (p: unknown) => string> = {
  deploy_failed: (p) => str(p, "error_message"),
  deploy_locked: () => "is now locked.",
  deploy_unlocked: () => "is now unlocked.",
  deploy_building: (p) => `is now ${str(p, "state")}.`,
  deploy_created: (p) => `is now ${str(p, "state")}.`,
};

export const netlify: Integration = {
  name: "netlify",
  displayName: "Netlify",
  handle(request) {
    const event = eventHeader(request.headers, "X-Netlify-Event");
    if (!Object.hasOwn(STATES, event)) throw new UnsupportedEvent(event);
    const p = request.json;
    const branch = str(p, "branch");
    const content = `The build [${str(p, "name")}](${str(p, "url")}) on branch ${branch} ${STATES[event]!(p)}`;
    return { event, messages: [{ topic: branch, content }] };
  },
};
