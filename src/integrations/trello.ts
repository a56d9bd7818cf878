/**
 * Trello board webhooks: card and board actions, worded as Zulip words them, one topic per board.
 * Trello checks the URL with a HEAD request first; the endpoint answers that one.
 */
import { field, optStr, str, truthy } from "./git.js";
import { UnsupportedEvent, type Integration, type WebhookOutcome } from "./types.js";

type Payload = unknown;

const CARD_ACTIONS = new Set([
  "updateCard",
  "createCard",
  "addLabelToCard",
  "removeLabelFromCard",
  "addMemberToCard",
  "removeMemberFromCard",
  "addAttachmentToCard",
  "addChecklistToCard",
  "commentCard",
  "updateCheckItemStateOnCard",
]);
/** Sent by Trello, not reported. */
const IGNORED_CARD_ACTIONS = new Set(["copyCard", "createCheckItem", "updateCheckItem", "updateList"]);
const BOARD_ACTIONS = new Set(["removeMemberFromBoard", "addMemberToBoard", "createList", "updateBoard"]);
/** Card updates Zulip does not report: moves within a list, covers, and `dueComplete`. */
const IGNORED_CARD_FIELDS = ["cover", "dueComplete", "idAttachmentCover", "pos"];

const data = (p: Payload) => field(p, "action", "data");
/** Trello's ISO times as Zulip shows them: `2016-05-11T10:00:00.000Z` → `2016-05-11 10:00:00 UTC`. */
const prettyDate = (date: string) => date.replaceAll("T", " ").replaceAll(".000", "").replaceAll("Z", " UTC");
const quote = (text: string) => `~~~ quote\n${text}\n~~~`;

/** Which change an `updateCard` reports, read in Zulip's order; null for the ignored ones. */
function cardUpdate(p: Payload): string | null {
  const d = data(p);
  const old = field(d, "old");
  const card = field(d, "card");
  if (truthy(field(d, "listBefore"))) return "changeList";
  if (truthy(optStr(old, "name"))) return "changeName";
  const oldDesc = optStr(old, "desc");
  if (oldDesc === "") return "setDesc";
  if (truthy(oldDesc)) return optStr(card, "desc") === "" ? "removeDesc" : "changeDesc";
  // A due date present and null was unset before.
  if (field(old, "due") === null) return "setDueDate";
  if (truthy(optStr(old, "due"))) return field(card, "due") === null ? "removeDueDate" : "changeDueDate";
  if (field(old, "closed") === false && field(card, "closed") === true) return "archiveCard";
  if (truthy(field(old, "closed")) && field(card, "closed") === false) return "reopenCard";
  if (IGNORED_CARD_FIELDS.some((name) => field(old, name) !== undefined)) return null;
  throw new UnsupportedEvent("updateCard");
}

function cardBody(p: Payload, action: string): string {
  const d = data(p);
  const card = `[${str(d, "card", "name")}](https://trello.com/c/${str(d, "card", "shortLink")})`;
  switch (action) {
    case "createCard":
      return `created ${card}.`;
    case "changeList":
      return `moved ${card} from ${str(d, "listBefore", "name")} to ${str(d, "listAfter", "name")}.`;
    case "changeName":
      return `renamed the card from "${str(d, "old", "name")}" to ${card}.`;
    case "setDesc":
      return `set description for ${card} to:\n${quote(str(d, "card", "desc"))}`;
    case "changeDesc":
      return `changed description for ${card} from\n${quote(str(d, "old", "desc"))}\nto\n${quote(str(d, "card", "desc"))}`;
    case "removeDesc":
      return `removed description from ${card}.`;
    case "archiveCard":
      return `archived ${card}.`;
    case "reopenCard":
      return `reopened ${card}.`;
    case "setDueDate":
      return `set due date for ${card} to ${prettyDate(str(d, "card", "due"))}.`;
    case "changeDueDate":
      return `changed due date for ${card} from ${prettyDate(str(d, "old", "due"))} to ${prettyDate(str(d, "card", "due"))}.`;
    case "removeDueDate":
      return `removed the due date from ${card}.`;
    case "addLabelToCard":
      return `added a ${str(d, "value")} label with "${str(d, "text")}" to ${card}.`;
    case "removeLabelFromCard":
      return `removed a ${str(d, "value")} label with "${str(d, "text")}" from ${card}.`;
    case "addMemberToCard":
      return `added ${str(p, "action", "member", "fullName")} to ${card}.`;
    case "removeMemberFromCard":
      return `removed ${str(p, "action", "member", "fullName")} from ${card}.`;
    case "addAttachmentToCard":
      return `added [${str(d, "attachment", "name")}](${str(d, "attachment", "url")}) to ${card}.`;
    case "addChecklistToCard":
      return `added the ${str(d, "checklist", "name")} checklist to ${card}.`;
    case "commentCard":
      return `commented on ${card}:\n${quote(str(d, "text"))}`;
    default: {
      const checked = str(d, "checkItem", "state") === "complete" ? "checked" : "unchecked";
      return `${checked} **${str(d, "checkItem", "name")}** in **${str(d, "checklist", "name")}** (${card}).`;
    }
  }
}

function boardBody(p: Payload, action: string): string | null {
  const d = data(p);
  const board = `[${str(d, "board", "name")}](https://trello.com/b/${str(d, "board", "shortLink")})`;
  switch (action) {
    case "removeMemberFromBoard":
      return `removed ${str(p, "action", "member", "fullName")} from ${board}.`;
    case "addMemberToBoard":
      return `added ${str(p, "action", "member", "fullName")} to ${board}.`;
    case "createList":
      return `added ${str(d, "list", "name")} list to ${board}.`;
    default:
      // A new background is not reported; a new name is.
      if (field(d, "old", "prefs", "background") !== undefined) return null;
      if (truthy(str(d, "old", "name"))) return `renamed the board from ${str(d, "old", "name")} to ${board}.`;
      throw new UnsupportedEvent(action);
  }
}

export const trello: Integration = {
  name: "trello",
  displayName: "Trello",
  handle(request): WebhookOutcome {
    const p = request.json;
    const action = str(p, "action", "type");
    let body: string | null;
    if (CARD_ACTIONS.has(action)) {
      const change = action === "updateCard" ? cardUpdate(p) : action;
      body = change === null ? null : cardBody(p, change);
    } else if (IGNORED_CARD_ACTIONS.has(action)) {
      body = null;
    } else if (BOARD_ACTIONS.has(action)) {
      body = boardBody(p, action);
    } else {
      throw new UnsupportedEvent(action);
    }
    if (body === null) return { messages: [] };
    const creator = optStr(p, "action", "memberCreator", "fullName") ?? "None";
    return { messages: [{ topic: str(data(p), "board", "name"), content: `${creator} ${body}` }] };
  },
};
