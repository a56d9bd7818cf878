/**
 * Clubhouse (now Shortcut) webhooks: story, epic, task, comment and GitHub link events, one
 * topic per story or epic, as Zulip words them. A payload carries several actions; the one named
 * by `primary_id` is reported, or, for a batch update of several stories, each of them.
 */
import { field, int, list, optStr, str, truthy } from "./git.js";
import { AnomalousPayload, UnsupportedEvent, type Integration, type WebhookMessage } from "./types.js";

type Payload = unknown;
type Body = (p: Payload, action: unknown) => string | null;

/** Python's `str.format` of an optional value: a missing one shows as `None`. */
const shown = (value: string | null) => value ?? "None";

const has = (value: unknown, key: string) => field(value, key) !== undefined;
const actions = (p: Payload) => list(p, "actions");
const references = (p: Payload) => list(p, "references");
const changes = (action: unknown) => field(action, "changes");

/** An integer or null, absent counting as null (`.get(key).tame(check_none_or(check_int))`). */
function intOrNull(value: unknown, key: string): number | null {
  return field(value, key) == null ? null : int(value, key);
}

/** The last reference with this id; ids are matched with their JSON type, as Zulip compares them. */
function reference(p: Payload, id: number | null): unknown {
  let found: unknown;
  for (const ref of references(p)) if (field(ref, "id") === id) found = ref;
  return found;
}

/** The name of the reference with this id, which the message needs. */
function referenceName(p: Payload, id: number | null): string {
  const ref = reference(p, id);
  if (ref === undefined) throw new AnomalousPayload();
  return str(ref, "name");
}

function primaryAction(p: Payload): unknown {
  let found: unknown;
  for (const action of actions(p)) if (field(action, "id") === field(p, "primary_id")) found = action;
  if (found === undefined) throw new AnomalousPayload();
  return found;
}

const storyLink = (action: unknown) => `[${str(action, "name")}](${str(action, "app_url")})`;
/** Stories link to the app; epics are named in bold (their `app_url` may be null). */
function nameTemplate(entity: string, action: unknown): string {
  const name = str(action, "name");
  return entity === "story" ? `[${name}](${shown(optStr(action, "app_url"))})` : `**${name}**`;
}
const quote = (text: string) => `\`\`\` quote\n${text}\n\`\`\``;

/** The event an action reports: entity and action, then the first changed field Zulip knows. */
function eventOf(p: Payload, action: unknown): string | null {
  const event = `${str(action, "entity_type")}_${str(action, "action")}`;
  // Without a primary action several stories changed at once.
  if (event === "story_update" && !has(p, "primary_id")) return "story_update_batch";
  // Edited comments are not reported.
  if (event === "story-comment_update") return null;
  if (!has(action, "changes")) return event;
  const changed = changes(action);
  for (const [field, suffix] of CHANGE_SUFFIXES) if (has(changed, field)) return `${event}_${suffix}`;
  return event;
}

const CHANGE_SUFFIXES: [string, string][] = [
  ["description", "description"],
  ["state", "state"],
  ["workflow_state_id", "state"],
  ["name", "name"],
  ["archived", "archived"],
  ["complete", "complete"],
  ["epic_id", "epic"],
  ["estimate", "estimate"],
  ["file_ids", "attachment"],
  ["label_ids", "label"],
  ["project_id", "project"],
  ["story_type", "type"],
  ["owner_ids", "owner"],
];

function storyCreate(p: Payload, action: unknown): string {
  const link = `[${str(action, "name")}](${str(action, "app_url")})`;
  if (!has(action, "epic_id")) return `New story ${link} of type **${str(action, "story_type")}** was created.`;
  return `New story ${link} was created and added to the epic **${referenceName(p, int(action, "epic_id"))}**.`;
}

function commentAdded(entity: string): Body {
  return (p) => {
    let text: string | undefined;
    let name: string | undefined;
    for (const action of actions(p)) {
      if (field(action, "id") === field(p, "primary_id")) text = str(action, "text");
      else if (field(action, "entity_type") === entity) name = nameTemplate(entity, action);
    }
    if (text === undefined || name === undefined) throw new AnomalousPayload();
    return `New comment added to the ${entity} ${name}:\n${quote(text)}`;
  };
}

function descriptionUpdate(entity: string): Body {
  return (_p, action) => {
    const desc = field(changes(action), "description");
    const [next, old] = [str(desc, "new"), str(desc, "old")];
    const name = nameTemplate(entity, action);
    if (next && old) return `Description for the ${entity} ${name} was changed from:\n${quote(old)}\nto\n${quote(next)}`;
    if (next) return `New description added to the ${entity} ${name}:\n${quote(next)}`;
    return `Description for the ${entity} ${name} was removed.`;
  };
}

function nameUpdate(entity: string): Body {
  return (_p, action) => {
    const name = field(changes(action), "name");
    return (
      `The name of the ${entity} ${nameTemplate(entity, action)} was changed from:\n` +
      `${quote(str(name, "old"))}\nto\n${quote(str(name, "new"))}`
    );
  };
}

function archivedUpdate(entity: string): Body {
  return (_p, action) => {
    const operation = truthy(field(changes(action), "archived", "new")) ? "archived" : "unarchived";
    return `The ${entity} ${nameTemplate(entity, action)} was ${operation}.`;
  };
}

function storyTask(operation: string): Body {
  return (p, action) => {
    let story: string | undefined;
    for (const a of actions(p)) if (str(a, "entity_type") === "story") story = storyLink(a);
    if (story === undefined) throw new AnomalousPayload();
    return `Task **${str(action, "description")}** was ${operation} the story ${story}.`;
  };
}

function storyTaskCompleted(p: Payload, action: unknown): string | null {
  const storyId = int(action, "story_id");
  let story: string | undefined;
  for (const ref of references(p)) if (field(ref, "id") === storyId) story = storyLink(ref);
  if (field(changes(action), "complete", "new") !== true) return null;
  if (story === undefined) throw new AnomalousPayload();
  return `Task **${str(action, "description")}** (${story}) was completed. :tada:`;
}

function storyStateUpdate(p: Payload, action: unknown): string {
  const ids = field(changes(action), "workflow_state_id");
  const [next, old] = [referenceName(p, int(ids, "new")), referenceName(p, int(ids, "old"))];
  return `State of the story ${nameTemplate("story", action)} was changed from **${old}** to **${next}**.`;
}

function epicStateUpdate(_p: Payload, action: unknown): string {
  const state = field(changes(action), "state");
  return `State of the epic **${str(action, "name")}** was changed from **${str(state, "old")}** to **${str(state, "new")}**.`;
}

function storyEpicUpdate(p: Payload, action: unknown): string {
  const story = storyLink(action);
  const ids = field(changes(action), "epic_id");
  const [newId, oldId] = [intOrNull(ids, "new"), intOrNull(ids, "old")];
  const epic = (id: number | null) => `**${referenceName(p, id)}**`;
  if (newId && oldId) return `The story ${story} was moved from ${epic(oldId)} to ${epic(newId)}.`;
  if (newId) return `The story ${story} was added to the epic ${epic(newId)}.`;
  return `The story ${story} was removed from the epic ${epic(oldId)}.`;
}

function storyEstimateUpdate(_p: Payload, action: unknown): string {
  const estimate = field(changes(action), "estimate");
  const points = has(estimate, "new") ? `${int(estimate, "new")} points` : "*Unestimated*";
  return `The estimate for the story ${storyLink(action)} was set to ${points}.`;
}

/** Only added files are reported. */
function storyAttachmentUpdate(p: Payload, action: unknown): string | null {
  const fileIds = field(changes(action), "file_ids");
  if (!has(fileIds, "adds")) return null;
  const ref = reference(p, int(list(fileIds, "adds")[0]));
  if (ref === undefined) throw new AnomalousPayload();
  return `A ${str(ref, "entity_type")} attachment \`${str(ref, "name")}\` was added to the story ${storyLink(action)}.`;
}

/** Each label's name, from the payload's actions or else its references. */
function labelList(p: Payload, ids: unknown[]): string {
  return ids
    .map((id) => {
      let name = "";
      for (const a of actions(p)) if (int(a, "id") === id) name = has(a, "name") ? str(a, "name") : "";
      if (name === "") {
        const ref = reference(p, id as number);
        name = ref === undefined ? "" : str(ref, "name");
      }
      return `**${name}**`;
    })
    .join(", ");
}

/** Only added labels are reported. */
function storyLabelUpdate(p: Payload, action: unknown): string | null {
  const labelIds = field(changes(action), "label_ids");
  if (!has(labelIds, "adds")) return null;
  const added = intList(labelIds, "adds");
  const labels = labelList(p, added);
  return added.length === 1
    ? `The label ${labels} was added to the story ${storyLink(action)}.`
    : `The labels ${labels} were added to the story ${storyLink(action)}.`;
}

function intList(value: unknown, key: string): number[] {
  return list(value, key).map((v) => int(v));
}

function storyProjectUpdate(p: Payload, action: unknown): string {
  const ids = field(changes(action), "project_id");
  const [next, old] = [referenceName(p, int(ids, "new")), referenceName(p, int(ids, "old"))];
  return `The story ${storyLink(action)} was moved from the **${old}** project to **${next}**.`;
}

function storyTypeUpdate(_p: Payload, action: unknown): string {
  const type = field(changes(action), "story_type");
  return `The type of the story ${storyLink(action)} was changed from **${str(type, "old")}** to **${str(type, "new")}**.`;
}

/** A GitHub pull request, its comment, or a branch linked to a story (the story is `action`). */
function githubLink(entity: "pull-request" | "pull-request-comment" | "branch"): Body {
  return (p, action) => {
    const linked = primaryAction(p);
    const name = entity === "branch" ? str(linked, "name") : String(int(linked, "number"));
    const url = str(linked, "url");
    let state = "";
    if (has(changes(action), "workflow_state_id")) {
      const ids = field(changes(action), "workflow_state_id");
      state = ` (${referenceName(p, int(ids, "old"))} -> ${referenceName(p, int(ids, "new"))})`;
    }
    const story = storyLink(action);
    if (entity === "pull-request") return `New GitHub PR [#${name}](${url}) opened for story ${story}${state}.`;
    if (entity === "pull-request-comment") return `Existing GitHub PR [#${name}](${url}) associated with story ${story}${state}.`;
    return `New GitHub branch [${name}](${url}) associated with story ${story}${state}.`;
  };
}

/** A reference's name, or None when the id or its reference is missing. */
function optionalReferenceName(p: Payload, id: number | null): string {
  const ref = reference(p, id);
  return ref === undefined ? "None" : str(ref, "name");
}

/**
 * One story of a batch update, which may change several fields at once. A single change is
 * worded as the matching one-story event; changes Zulip cannot word are not reported.
 */
function storyBatchUpdate(p: Payload, action: unknown): string | null {
  const changed = changes(action);
  const parts: string[] = [];
  let lastChange = "other";
  const moves: string[] = [];
  for (const [key, label, change] of [
    ["epic_id", "Epic", "epic"],
    ["project_id", "Project", "project"],
  ] as const) {
    if (!has(changed, key)) continue;
    lastChange = change;
    const ids = field(changed, key);
    moves.push(`${label} **${optionalReferenceName(p, intOrNull(ids, "old"))}** to **${optionalReferenceName(p, intOrNull(ids, "new"))}**`);
  }
  if (moves.length) parts.push(`was moved from ${moves.join(", ")}`);
  if (has(changed, "story_type")) {
    lastChange = "type";
    const type = field(changed, "story_type");
    const [old, next] = [shown(optStr(type, "old")), shown(optStr(type, "new"))];
    parts.push(`${parts.length ? "and" : "was"} changed from type **${old}** to **${next}**`);
  }
  if (has(changed, "label_ids")) {
    const labelIds = field(changed, "label_ids");
    if (has(labelIds, "adds")) {
      lastChange = "label";
      // Zulip counts the keys of `label_ids` (adds, removes) for the plural, not the labels.
      const plural = Object.keys(labelIds as object).length > 1 ? "s" : "";
      parts.push(`${parts.length ? "and" : "was"} added with the new label${plural} ${labelList(p, intList(labelIds, "adds"))}`);
    }
  }
  let state = "";
  if (has(changed, "workflow_state_id")) {
    lastChange = "state";
    const ids = field(changed, "workflow_state_id");
    state = ` (${optionalReferenceName(p, intOrNull(ids, "old"))} -> ${optionalReferenceName(p, intOrNull(ids, "new"))})`;
  }
  if (parts.length <= 1) {
    const single = BODIES[`story_update_${lastChange}`];
    return single === undefined ? null : single(p, action);
  }
  return `The story ${storyLink(action)} ${parts.join(", ")}${state}.`;
}

const deleted: Body = (_p, action) => `The ${str(action, "entity_type")} **${str(action, "name")}** was deleted.`;

const BODIES: Record<string, Body> = {
  "story_update_archived": archivedUpdate("story"),
  "epic_update_archived": archivedUpdate("epic"),
  "story_create": storyCreate,
  "pull-request_create": githubLink("pull-request"),
  "pull-request_comment": githubLink("pull-request-comment"),
  "branch_create": githubLink("branch"),
  "story_delete": deleted,
  "epic_delete": deleted,
  "story-task_create": storyTask("added to"),
  "story-task_delete": storyTask("removed from"),
  "story-task_update_complete": storyTaskCompleted,
  "story_update_epic": storyEpicUpdate,
  "story_update_estimate": storyEstimateUpdate,
  "story_update_attachment": storyAttachmentUpdate,
  "story_update_label": storyLabelUpdate,
  "story_update_owner": (_p, action) => `New owner added to the story ${storyLink(action)}.`,
  "story_update_project": storyProjectUpdate,
  "story_update_type": storyTypeUpdate,
  "epic_create": (_p, action) => `New epic **${str(action, "name")}**(${str(action, "state")}) was created.`,
  "epic-comment_create": commentAdded("epic"),
  "story-comment_create": commentAdded("story"),
  "epic_update_description": descriptionUpdate("epic"),
  "story_update_description": descriptionUpdate("story"),
  "epic_update_state": epicStateUpdate,
  "story_update_state": storyStateUpdate,
  "epic_update_name": nameUpdate("epic"),
  "story_update_name": nameUpdate("story"),
  "story_update_batch": storyBatchUpdate,
};

/** The entity whose name is the topic, by the action's entity type. */
const TOPIC_ENTITY: Record<string, "story" | "epic"> = {
  "story": "story",
  "pull-request": "story",
  "branch": "story",
  "story-comment": "story",
  "story-task": "story",
  "epic": "epic",
  "epic-comment": "epic",
};

/** The story or epic named by the action, else by the payload's other actions, else by its references. */
function topicOf(entity: string, p: Payload, action: unknown): string | null {
  let name = has(action, "name") ? str(action, "name") : null;
  if (name === null || field(action, "entity_type") === "branch") {
    for (const a of actions(p)) if (str(a, "entity_type") === entity) name = str(a, "name");
  }
  if (name === null) {
    for (const ref of references(p)) if (str(ref, "entity_type") === entity) name = str(ref, "name");
  }
  return name;
}

/** GitHub events are reported on each story whose links changed. */
const LINKED_STORY_CHANGE: Record<string, string> = {
  "pull-request_create": "pull_request_ids",
  "branch_create": "branch_ids",
  "pull-request_comment": "pull_request_ids",
};

function message(p: Payload, action: unknown, event: string): WebhookMessage | null {
  const body = BODIES[event];
  const entity = TOPIC_ENTITY[str(action, "entity_type")];
  if (body === undefined || entity === undefined) throw new UnsupportedEvent(event);
  const topic = topicOf(entity, p, action);
  const content = body(p, action);
  return topic && content ? { topic, content } : null;
}

export const clubhouse: Integration = {
  name: "clubhouse",
  displayName: "Clubhouse",
  handle(request) {
    // Clubhouse sometimes posts an empty (null) body.
    if (request.json === null) return { messages: [] };
    const p = request.json;
    const primaries = has(p, "primary_id") ? [primaryAction(p)] : actions(p);
    const messages: WebhookMessage[] = [];
    let firstEvent: string | undefined;
    for (const primary of primaries) {
      const event = eventOf(p, primary);
      if (event === null) continue;
      const linkedChange = LINKED_STORY_CHANGE[event];
      const targets = linkedChange
        ? actions(p).filter((a) => str(a, "entity_type") === "story" && has(changes(a), linkedChange))
        : [primary];
      for (const target of targets) {
        const m = message(p, target, event);
        if (m === null) continue;
        messages.push(m);
        firstEvent ??= event;
      }
    }
    // One payload's messages share one event in practice (a primary action, or a batch of story updates).
    return { event: firstEvent, messages };
  },
};
