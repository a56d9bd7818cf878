/**
 * Zendesk triggers: the trigger's own message template, posted as is under a topic naming the
 * ticket. Zendesk sends form fields and authenticates with HTTP Basic (the endpoint's part).
 */
import { missingArgument } from "../http/errors.js";
import type { Integration, WebhookRequest } from "./types.js";

const TOPIC_LENGTH = 60;

/** A field of the form, or of the URL as Zulip also reads it there. */
function field(request: WebhookRequest, name: string): string {
  const value = request.form[name] ?? request.params[name];
  if (value === undefined) throw missingArgument(name);
  return value;
}

/** Cut to `length` characters with an ellipsis, as Zulip cuts the ticket's topic. */
function truncate(text: string, length: number): string {
  const chars = Array.from(text);
  return chars.length > length ? `${chars.slice(0, length - 3).join("")}...` : text;
}

export const zendesk: Integration = {
  name: "zendesk",
  displayName: "Zendesk",
  handle(request) {
    const [title, id, message] = [field(request, "ticket_title"), field(request, "ticket_id"), field(request, "message")];
    return { messages: [{ topic: truncate(`#${id}: ${title}`, TOPIC_LENGTH), content: message }] };
  },
};
