/**
 * Basecamp 3 webhooks: documents, questions and answers, messages, to-do lists, to-dos and
 * comments, one topic per project, as Zulip words them.
 */
import { str } from "./git.js";
import { UnsupportedEvent, type Integration } from "./types.js";

type Payload = unknown;

/** The recording kinds Zulip reports. */
const SUPPORTED = new Set([
  "document_active",
  "document_created",
  "document_archived",
  "document_unarchived",
  "document_publicized",
  "document_title_changed",
  "document_content_changed",
  "document_trashed",
  "question_archived",
  "question_created",
  "question_trashed",
  "question_unarchived",
  "question_answer_archived",
  "question_answer_content_changed",
  "question_answer_created",
  "question_answer_trashed",
  "question_answer_unarchived",
  "message_archived",
  "message_content_changed",
  "message_created",
  "message_subject_changed",
  "message_trashed",
  "message_unarchived",
  "comment_created",
  "todolist_created",
  "todolist_description_changed",
  "todolist_name_changed",
  "todo_assignment_changed",
  "todo_completed",
  "todo_uncompleted",
  "todo_created",
  "todo_due_on_changed",
]);

/** Kind prefixes, longest first where one starts another; the prefix is the event `only_events` matches. */
const GENERIC: [prefix: string, noun: string][] = [
  ["document", "document"],
  ["question", "question"],
  ["message", "message"],
  ["todolist", "todo list"],
  ["todo", "todo task"],
];

const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** `document_title_changed` → `changed title of`; `document_active` → `activated`. */
function verb(kind: string, prefix: string): string {
  const rest = kind.slice(prefix.length + 1);
  if (rest === "active") return "activated";
  return rest.endsWith("_changed") ? `changed ${rest.slice(0, -"_changed".length)} of` : rest;
}

/** A full stop, unless the title the message ends with already ends in punctuation. */
const ending = (title: string) => (PUNCTUATION.has(title.slice(-1)) ? "" : ".");

function body(p: Payload, kind: string): { event: string; content: string } {
  const user = str(p, "creator", "name");
  const url = str(p, "recording", "app_url");
  for (const [prefix, noun] of [["question_answer", "answer"], ["comment", "comment"]] as const) {
    if (!kind.startsWith(`${prefix}_`)) continue;
    const parentTitle = str(p, "recording", "parent", "title");
    const parent = `[${parentTitle}](${str(p, "recording", "parent", "app_url")})`;
    const of = noun === "answer" ? "of the question" : "of the task";
    return { event: prefix, content: `${user} ${verb(kind, prefix)} the [${noun}](${url}) ${of} ${parent}${ending(parentTitle)}` };
  }
  for (const [prefix, noun] of GENERIC) {
    if (!kind.startsWith(`${prefix}_`)) continue;
    const title = str(p, "recording", "title");
    return { event: prefix, content: `${user} ${verb(kind, prefix)} the ${noun} [${title}](${url})${ending(title)}` };
  }
  throw new UnsupportedEvent(kind);
}

export const basecamp: Integration = {
  name: "basecamp",
  displayName: "Basecamp",
  handle(request) {
    const p = request.json;
    const kind = str(p, "kind");
    if (!SUPPORTED.has(kind)) throw new UnsupportedEvent(kind);
    const { event, content } = body(p, kind);
    return { event, messages: [{ topic: str(p, "recording", "bucket", "name"), content }] };
  },
};
