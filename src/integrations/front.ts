/**
 * Front webhooks: messages, comments, assignment, archiving, deletion and tags of a
 * conversation, one topic per conversation id, as Zulip words them.
 */
import { ZulipError } from "../http/errors.js";
import { list, str } from "./git.js";
import type { Integration } from "./types.js";

type Payload = unknown;

/** Who acted: a teammate by name, a rule by its name, else the source's type (`(gmail)`). */
function sourceName(p: Payload): string {
  const type = str(p, "source", "_meta", "type");
  if (type === "teammate") return `${str(p, "source", "data", "first_name")} ${str(p, "source", "data", "last_name")}`;
  if (type === "rule") return `'${str(p, "source", "data", "name")}' rule`;
  return `(${type})`;
}

const targetName = (p: Payload) => `${str(p, "target", "data", "first_name")} ${str(p, "target", "data", "last_name")}`;

/** The message's link, the customer's address, our inbox's address and the subject. */
function messageData(p: Payload) {
  return {
    link: `https://app.frontapp.com/open/${str(p, "target", "data", "id")}`,
    outbox: str(p, "conversation", "recipient", "handle"),
    inbox: str(list(p, "source", "data")[0], "address"),
    subject: str(p, "conversation", "subject"),
  };
}

function comment(p: Payload): string {
  return `**${sourceName(p)}** left a comment:\n\`\`\`quote\n${str(p, "target", "data", "body")}\n\`\`\``;
}

const BODIES: Record<string, (p: Payload) => string> = {
  inbound(p) {
    const m = messageData(p);
    return `[Inbound message](${m.link}) from **${m.outbox}** to **${m.inbox}**:\n\`\`\`quote\n*Subject*: ${m.subject}\n\`\`\``;
  },
  outbound(p) {
    const m = messageData(p);
    return `[Outbound message](${m.link}) from **${m.inbox}** to **${m.outbox}**:\n\`\`\`quote\n*Subject*: ${m.subject}\n\`\`\``;
  },
  out_reply(p) {
    const m = messageData(p);
    return `[Outbound reply](${m.link}) from **${m.inbox}** to **${m.outbox}**.`;
  },
  comment,
  mention: comment,
  assign(p) {
    const [source, target] = [sourceName(p), targetName(p)];
    return source === target ? `**${source}** assigned themselves.` : `**${source}** assigned **${target}**.`;
  },
  unassign: (p) => `Unassigned by **${sourceName(p)}**.`,
  archive: (p) => `Archived by **${sourceName(p)}**.`,
  reopen: (p) => `Reopened by **${sourceName(p)}**.`,
  trash: (p) => `Deleted by **${sourceName(p)}**.`,
  restore: (p) => `Restored by **${sourceName(p)}**.`,
  tag: (p) => `**${sourceName(p)}** added tag **${str(p, "target", "data", "name")}**.`,
  untag: (p) => `**${sourceName(p)}** removed tag **${str(p, "target", "data", "name")}**.`,
};

export const front: Integration = {
  name: "front",
  displayName: "Front",
  handle(request) {
    const p = request.json;
    const event = str(p, "type");
    // Zulip refuses an unknown type as a bad request, not as an ignored event.
    if (!Object.hasOwn(BODIES, event)) throw new ZulipError("Unknown webhook request");
    return { event, messages: [{ topic: str(p, "conversation", "id"), content: BODIES[event]!(p) }] };
  },
};
