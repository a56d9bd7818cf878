/** GET /messages: a window of messages around an anchor, within a narrow. */
import { sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { getUserById, getUserByAnyEmail } from "../store/users.js";
import type { StreamRow } from "../store/streams.js";
import { dmKeyFor, type MessageRow } from "../store/messages.js";
import { MAX_ROW_ID, isStorableId } from "../store/ids.js";
import { dialectOf, type Dialect } from "../store/db.js";
import { badNarrow, badRequest, incompatibleParameters } from "../http/errors.js";
import { FLAG_BITS, HISTORICAL_FLAGS, MENTION_MASK, flagsForApi } from "../domain/message_flags.js";
import type { NarrowTerm } from "../domain/narrow.js";
import { canAccessHistory } from "../domain/channel_access.js";
import { isGuest } from "../domain/roles.js";
import { channelFacts, subscribedChannelIds, userFacts } from "./channel_context.js";
import { findChannel, realmStreamRows } from "./streams.js";
import { messageContext, messageContextVersions } from "./messages.js";
import { formatKey, messageJsonHead, type MessageFormatOptions } from "../format/messages.js";
import { RawJson } from "../http/raw_json.js";
import { highlightHtml, parseSearch, searchWords } from "../domain/search_highlight.js";
import { indexedWordsCondition, substringCondition } from "../store/search_index.js";
import { escapeHtml } from "../markdown/render.js";
import { idList, preparedRead, preparedReadWith, type Conditions } from "../store/prepared.js";
import { reactionsByMessage } from "../store/reactions.js";
import type { CachedMessage } from "../store/message_cache.js";

export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;
export const MAX_MESSAGES_PER_FETCH = 5000;

export type Anchor = number | "first_unread";

/** The `anchor` parameter: a message id (clamped), or `newest`, `oldest`, `first_unread`. */
export function parseAnchor(raw: string | undefined, useFirstUnread: boolean): Anchor {
  if (useFirstUnread) return "first_unread";
  if (raw === undefined) throw badRequest("Missing 'anchor' argument.");
  if (raw === "oldest") return 0;
  if (raw === "newest") return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === "first_unread") return "first_unread";
  if (!/^\s*[+-]?\d+\s*$/.test(raw)) throw badRequest("Invalid anchor");
  const n = Number(raw);
  return Math.min(Math.max(n, 0), LARGER_THAN_MAX_MESSAGE_ID);
}

const col = (name: string) => sql.ref(name);

interface NarrowPlan {
  conditions: readonly Expression<SqlBool>[];
  /**
   * Checks that read a message's whole text (search words, `has:`): costly per row, and no index
   * narrows them. They are asked only of the rows the conditions find (see `baseQuery`).
   */
  filters: readonly Expression<SqlBool>[];
  includeHistory: boolean;
}

/** From the organization's cached channels: a channel narrow is the most common fetch. */
async function findNarrowChannel(app: AppContext, db: Executor, realm: Realm, operand: string | number): Promise<StreamRow> {
  const stream = await findChannel(app, db, realm.id, operand);
  if (!stream) throw badNarrow(`unknown channel ${operand}`);
  return stream;
}

async function findNarrowUser(db: Executor, realm: Realm, operand: string | number): Promise<UserRow | undefined> {
  return typeof operand === "number" ? getUserById(db, realm.id, operand) : getUserByAnyEmail(db, realm.id, operand);
}

/** Turns narrow terms into SQL conditions over `m` (messages) and `um` (the user's copy). */
async function planNarrow(app: AppContext, db: Executor, realm: Realm, user: UserRow, terms: readonly NarrowTerm[]): Promise<NarrowPlan> {
  const conditions: Expression<SqlBool>[] = [];
  const filters: Expression<SqlBool>[] = [];
  let includeHistory = false;
  let channelNarrow = false;
  let dmNarrow = false;
  const mark = (kind: "channel" | "dm") => {
    if (kind === "channel") channelNarrow = true;
    else dmNarrow = true;
    if (channelNarrow && dmNarrow) throw badNarrow("No message can be both a channel message and direct message");
  };

  for (const term of terms) {
    const { operator, operand } = term;
    let cond: Expression<SqlBool> | null;
    let filter = false;
    switch (operator) {
      case "channel": {
        mark("channel");
        const stream = await findNarrowChannel(app, db, realm, operand as string | number);
        if (!term.negated) {
          const subscribed = (await subscribedChannelIds(app, db, user.id)).has(stream.id);
          includeHistory = canAccessHistory(await userFacts(app, db, user), channelFacts(stream), subscribed);
        }
        cond = sql<SqlBool>`${col("m.stream_id")} = ${stream.id}`;
        break;
      }
      case "channels": {
        mark("channel");
        const all = await realmStreamRows(app, realm.id, db);
        let ids: number[];
        if (operand === "public") {
          ids = all.filter((s) => s.invite_only === 0 && s.history_public_to_subscribers === 1).map((s) => s.id);
          if (!term.negated && !isGuest(user.role)) includeHistory = true;
        } else if (operand === "web-public") {
          ids = all.filter((s) => s.is_web_public === 1).map((s) => s.id);
        } else throw badNarrow(`unknown channels operand ${operand}`);
        cond = ids.length ? sql<SqlBool>`${col("m.stream_id")} in (${sql.join(ids)})` : sql<SqlBool>`1 = 0`;
        break;
      }
      case "topic":
        mark("channel");
        cond = sql<SqlBool>`${col("m.stream_id")} is not null and lower(${col("m.topic")}) = ${String(operand).toLowerCase()}`;
        break;
      case "sender": {
        const sender = await findNarrowUser(db, realm, operand as string | number);
        if (!sender) throw badNarrow(`unknown user ${operand}`);
        cond = sql<SqlBool>`${col("m.sender_id")} = ${sender.id}`;
        break;
      }
      case "id":
        if (!/^\d+$/.test(String(operand))) throw badNarrow("Invalid message ID");
        cond = isStorableId(Number(operand)) ? sql<SqlBool>`${col("m.id")} = ${Number(operand)}` : sql<SqlBool>`1 = 0`;
        break;
      case "dm": {
        mark("dm");
        const given = typeof operand === "string" ? operand.split(",") : (operand as number[]);
        const ids: number[] = [];
        for (const g of given) {
          const u = await findNarrowUser(db, realm, typeof g === "string" ? g.trim() : g);
          if (!u) throw badNarrow(`unknown user in ${Array.isArray(operand) ? `[${operand.join(", ")}]` : operand}`);
          ids.push(u.id);
        }
        cond = sql<SqlBool>`${col("m.dm_key")} = ${dmKeyFor([user.id, ...ids])}`;
        break;
      }
      case "dm-including": {
        mark("dm");
        const other = await findNarrowUser(db, realm, operand as string | number);
        if (!other) throw badNarrow(`unknown user ${operand}`);
        const id = String(other.id);
        cond = sql<SqlBool>`(${col("m.dm_key")} = ${id} or ${col("m.dm_key")} like ${id + ",%"} or ${col("m.dm_key")} like ${"%," + id} or ${col("m.dm_key")} like ${"%," + id + ",%"})`;
        break;
      }
      case "is":
        cond = isCondition(String(operand), mark);
        break;
      case "in":
        if (operand !== "home" && operand !== "all") throw badNarrow(`unknown 'in' operand ${operand}`);
        cond = null;
        break;
      case "near":
        cond = null;
        break;
      case "has":
        cond = hasCondition(String(operand));
        filter = true;
        break;
      case "search":
        cond = searchCondition(String(operand), dialectOf(db));
        filter = true;
        break;
      default:
        throw badNarrow(`unknown operator ${operator}`);
    }
    if (cond) (filter ? filters : conditions).push(term.negated ? sql<SqlBool>`not (${cond})` : cond);
  }
  if (terms.some((t) => t.operator === "is" && t.operand !== "resolved")) includeHistory = false;
  return { conditions, filters, includeHistory };
}

// Literal masks: the partial indexes on unread and starred rows apply only to literal conditions.
const flagSet = (mask: number) => sql<SqlBool>`(${col("um.flags")} & ${sql.lit(mask)}) <> 0`;

function isCondition(operand: string, mark: (kind: "channel" | "dm") => void): Expression<SqlBool> {
  switch (operand) {
    case "dm":
    case "private":
      mark("dm");
      return sql<SqlBool>`${col("m.dm_key")} is not null`;
    case "starred":
      return flagSet(FLAG_BITS.starred);
    case "unread":
      return sql<SqlBool>`(${col("um.flags")} & ${sql.lit(FLAG_BITS.read)}) = 0`;
    case "mentioned":
      return flagSet(MENTION_MASK);
    case "alerted":
      return flagSet(FLAG_BITS.has_alert_word);
    case "resolved":
      return sql<SqlBool>`${col("m.topic")} like ${"✔ %"}`;
    default:
      throw badNarrow(`unknown 'is' operand ${operand}`);
  }
}

function hasCondition(operand: string): Expression<SqlBool> {
  switch (operand) {
    case "link":
      return sql<SqlBool>`${col("m.rendered_content")} like ${"%<a %"}`;
    case "image":
      return sql<SqlBool>`${col("m.rendered_content")} like ${"%<img %"}`;
    case "attachment":
      return sql<SqlBool>`${col("m.content")} like ${"%/user_uploads/%"}`;
    case "reaction":
      return sql<SqlBool>`1 = 0`;
    default:
      throw badNarrow(`unknown 'has' operand ${operand}`);
  }
}

/**
 * Every word must be in the word index of the message (its topic and rendered text), and every
 * quoted phrase or unspaced-script word in its Markdown source or topic, ignoring case. Only
 * stop words (or nothing searchable) match nothing, as PostgreSQL's empty query does for Zulip.
 *
 * Substrings: PostgreSQL takes `LIKE '%word%'` to match almost no message, and so read every
 * message of the organization for the few it expected, then sorted them (950 ms at a million
 * messages), instead of walking the user's newest messages until enough match. It has no such
 * guess for strpos() and takes a third of the rows to match: it walks.
 */
function searchCondition(operand: string, dialect: Dialect): Expression<SqlBool> {
  const { words, substrings } = parseSearch(operand);
  const parts = substrings.map((s) => substringCondition(s, dialect));
  if (words.length) parts.push(indexedWordsCondition(words, dialect));
  return parts.length ? allOf(parts) : sql<SqlBool>`1 = 0`;
}

/** `a and b and ...` grouped in a balanced tree: SQLite refuses expressions nested 1,000 deep. */
function allOf(parts: readonly Expression<SqlBool>[]): RawBuilder<SqlBool> {
  if (parts.length <= 16) return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
  const half = Math.ceil(parts.length / 2);
  return sql<SqlBool>`(${allOf(parts.slice(0, half))} and ${allOf(parts.slice(half))})`;
}

interface Row {
  id: number;
  flags: number | null;
  version: number;
}

function baseQuery(db: Executor, realmId: number, userId: number, plan: NarrowPlan) {
  let q = plan.includeHistory
    ? db
        .selectFrom("messages as m")
        .leftJoin("user_messages as um", (j) => j.onRef("um.message_id", "=", "m.id").on("um.user_id", "=", userId))
        .where("m.realm_id", "=", realmId)
    : db
        .selectFrom("user_messages as um")
        .innerJoin("messages as m", "m.id", "um.message_id")
        .where("um.user_id", "=", userId)
        .where("m.realm_id", "=", realmId);
  for (const c of plan.conditions) q = q.where(c);
  if (plan.filters.length && dialectOf(db) === "postgres") {
    // PostgreSQL takes a filter to keep a third of the rows, so it checks it while walking every
    // message of the organization newest first and merging in the user's (25 ms for a word in
    // 1% of a million messages), rather than only on the user's messages (6 ms). A lateral
    // subquery it cannot flatten (`offset 0`) leaves the filter to be checked after the join.
    q = q.innerJoinLateral(sql<{ matched: number }>`(select 1 as matched where ${allOf(plan.filters)} offset 0)`.as("filtered"), (j) => j.onTrue());
  } else for (const c of plan.filters) q = q.where(c);
  return q.select(["m.id as id", "um.flags as flags", "m.version as version"]);
}

/** The messages with these ids that the narrow matches, oldest first. */
async function narrowRowsWithIds(db: Executor, realmId: number, userId: number, plan: NarrowPlan, ids: readonly number[]): Promise<Row[]> {
  const wanted = ids.filter(isStorableId);
  return wanted.length ? baseQuery(db, realmId, userId, plan).where("m.id", "in", wanted).orderBy("m.id").execute() : [];
}

const unreadReceived = sql<SqlBool>`${col("um.flags")} is not null and (${col("um.flags")} & ${sql.lit(FLAG_BITS.read)}) = 0`;

/**
 * The queries of a window, compiled once per shape of the narrow's conditions: Kysely took longer
 * to build and compile one than SQLite took to run it. Each walks the index of the table it
 * starts from: messages a user received are found in user_messages' (user_id, message_id)
 * order, never by sorting all of them.
 */
function windowQueries(includeHistory: boolean) {
  const id = includeHistory ? "m.id" : "um.message_id";
  const base = (db: Executor, [conditions, filters]: Conditions, userId: number, realmId: number) =>
    baseQuery(db, realmId, userId, { includeHistory, conditions, filters });
  return {
    firstUnread: preparedReadWith((db, conditions, userId: number, realmId: number) =>
      base(db, conditions, userId, realmId).where(unreadReceived).orderBy(id).limit(1),
    ),
    before: preparedReadWith((db, conditions, userId: number, realmId: number, atMost: number, limit: number) =>
      base(db, conditions, userId, realmId).where(id, "<=", atMost).orderBy(id, "desc").limit(limit),
    ),
    at: preparedReadWith((db, conditions, userId: number, realmId: number, anchor: number) =>
      base(db, conditions, userId, realmId).where("m.id", "=", anchor),
    ),
    after: preparedReadWith((db, conditions, userId: number, realmId: number, anchor: number, limit: number) =>
      base(db, conditions, userId, realmId).where(id, ">", anchor).orderBy(id).limit(limit),
    ),
  };
}

const windows = { history: windowQueries(true), received: windowQueries(false) };

export interface FetchRequest {
  anchor: string | undefined;
  includeAnchor: boolean;
  numBefore: number | undefined;
  numAfter: number | undefined;
  useFirstUnreadAnchor: boolean;
  messageIds: number[] | undefined;
  narrow: NarrowTerm[];
  format: MessageFormatOptions;
}

/** A range of messages around an anchor within a narrow, as GET /messages and flag updates select it. */
export interface WindowRequest {
  anchor: Anchor;
  includeAnchor: boolean;
  numBefore: number;
  numAfter: number;
  narrow: readonly NarrowTerm[];
}

/** The ids (with the user's flags, null for history they never received) in the window, oldest first. */
export async function fetchMessageWindow(app: AppContext, db: Executor, realm: Realm, user: UserRow, req: WindowRequest) {
  const { numBefore, numAfter, includeAnchor } = req;
  const plan = await planNarrow(app, db, realm, user, req.narrow);
  const w = plan.includeHistory ? windows.history : windows.received;
  const conditions = [plan.conditions, plan.filters];
  let anchorId: number;
  if (req.anchor === "first_unread") {
    const [first] = await w.firstUnread(db, conditions, user.id, realm.id);
    anchorId = first?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
  } else anchorId = req.anchor;
  // The anchor may exceed any row id (`newest`); then everything is before it and nothing after.
  const beyond = anchorId > MAX_ROW_ID;
  const before = numBefore ? await w.before(db, conditions, user.id, realm.id, beyond ? MAX_ROW_ID : anchorId - 1, numBefore) : [];
  const at = includeAnchor && !beyond ? await w.at(db, conditions, user.id, realm.id, anchorId) : [];
  const after = numAfter && !beyond ? await w.after(db, conditions, user.id, realm.id, anchorId, numAfter) : [];
  return {
    rows: [...before.reverse(), ...at, ...after],
    anchor: anchorId,
    foundAnchor: at.length === 1,
    foundOldest: anchorId === 0 || before.length < numBefore,
    foundNewest: anchorId >= LARGER_THAN_MAX_MESSAGE_ID || after.length < numAfter,
  };
}

/** Which of these messages the user received and the narrow matches. */
export async function receivedMessagesMatching(
  app: AppContext,
  db: Executor,
  realm: Realm,
  user: UserRow,
  narrow: readonly NarrowTerm[],
  ids: readonly number[],
) {
  if (!ids.some(isStorableId)) return [];
  const plan = { ...(await planNarrow(app, db, realm, user, narrow)), includeHistory: false };
  return (await narrowRowsWithIds(db, realm.id, user.id, plan, ids)).map((r) => r.id);
}

/** `match_content` and `match_subject`: a search result with the search words highlighted. */
export function searchMatch(m: Pick<MessageRow, "rendered_content" | "topic">, words: readonly string[]) {
  return { match_content: highlightHtml(m.rendered_content, words), match_subject: highlightHtml(escapeHtml(m.topic), words) };
}

const messagesWithIds = preparedRead((db, ids: readonly number[]) => db.selectFrom("messages").selectAll().where("id", "in", idList(db, ids)).orderBy("id"));

/**
 * The messages of these window rows with their reactions, in the rows' order: kept ones where
 * the window read the version kept, the others read and kept. Through `app.db`, outside any
 * transaction, as the cache requires. A message deleted since the window was read is left out.
 */
async function messagesOf(app: AppContext, rows: readonly Row[]): Promise<CachedMessage[]> {
  const cache = app.caches.messages;
  const found = new Map<number, CachedMessage>();
  const missing: number[] = [];
  for (const r of rows) {
    const kept = cache.get(r.id, r.version);
    if (kept) found.set(r.id, kept);
    else missing.push(r.id);
  }
  if (missing.length) {
    const read = await messagesWithIds(app.db, missing);
    const reactions = await reactionsByMessage(app.db, missing);
    for (const row of read) {
      const entry = { row, reactions: reactions.get(row.id) ?? [] };
      cache.set(entry);
      found.set(row.id, entry);
    }
  }
  return rows.flatMap((r) => found.get(r.id) ?? []);
}

/**
 * Each message's JSON up to its reader's fields: kept ones where kept under the current context,
 * the others made (with the context read for them alone) and kept.
 */
async function messageJsonHeads(app: AppContext, realm: Realm, messages: readonly CachedMessage[], format: MessageFormatOptions): Promise<Buffer[]> {
  const cache = app.caches.messages;
  const form = formatKey(format);
  // Read before the context is: a text made from rows older than these versions is never kept.
  const context = messageContextVersions(app);
  const heads = messages.map(({ row }) => cache.json(row.id, row.version, context, form));
  const missing = messages.filter((_, i) => !heads[i]);
  if (!missing.length) return heads as Buffer[];
  const ctx = await messageContext(app, app.db, realm, missing.map((m) => m.row), new Map(missing.map((m) => [m.row.id, m.reactions])));
  const keep = messageContextVersions(app) === context;
  return messages.map(({ row }, i) => {
    if (heads[i]) return heads[i];
    const head = messageJsonHead(row, ctx, format);
    if (keep) cache.keepJson(row.id, row.version, context, form, head);
    return head;
  });
}

const flagsTails = new Map<number, Buffer>();

/** `,"flags":[…]}`, the end of a message's JSON, for the user's flags. */
function flagsTail(flags: number): Buffer {
  let tail = flagsTails.get(flags);
  if (!tail) {
    tail = Buffer.from(`,"flags":${JSON.stringify(flagsForApi(flags))}}`);
    // Masks are combinations of a dozen flags; the bound only guards against a corrupt column.
    if (flagsTails.size >= 4096) flagsTails.clear();
    flagsTails.set(flags, tail);
  }
  return tail;
}

const [OPEN, COMMA, CLOSE] = ["[", ",", "]"].map((c) => Buffer.from(c));

/** The `messages` list as JSON: each message's kept part, then the reader's flags and search matches. */
async function messageList(app: AppContext, realm: Realm, rows: readonly Row[], words: readonly string[], format: MessageFormatOptions): Promise<RawJson> {
  const messages = await messagesOf(app, rows);
  const heads = await messageJsonHeads(app, realm, messages, format);
  const flagsById = new Map(rows.map((r) => [r.id, r.flags]));
  const chunks: Buffer[] = [OPEN];
  messages.forEach(({ row }, i) => {
    if (i) chunks.push(COMMA);
    chunks.push(heads[i]);
    // No copy of the message: history the user can read but never received.
    const tail = flagsTail(flagsById.get(row.id) ?? HISTORICAL_FLAGS);
    if (words.length) chunks.push(tail.subarray(0, -1), Buffer.from(`,${JSON.stringify(searchMatch(row, words)).slice(1)}`));
    else chunks.push(tail);
  });
  chunks.push(CLOSE);
  return new RawJson(chunks);
}

export async function fetchMessages(app: AppContext, user: UserRow, realm: Realm, req: FetchRequest) {
  const db = app.db;
  const numBefore = req.numBefore ?? 0;
  const numAfter = req.numAfter ?? 0;
  if (req.messageIds !== undefined && (numBefore || numAfter || req.anchor !== undefined || req.useFirstUnreadAnchor)) {
    throw incompatibleParameters(["num_before", "num_after", "anchor", "message_ids", "include_anchor", "use_first_unread_anchor"]);
  }
  let anchor: Anchor | null = null;
  if (req.messageIds === undefined) anchor = parseAnchor(req.anchor, req.useFirstUnreadAnchor);
  const requested = req.messageIds !== undefined ? req.messageIds.length : numBefore + numAfter;
  if (requested > MAX_MESSAGES_PER_FETCH) {
    throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  const includeAnchor = req.messageIds === undefined ? req.includeAnchor : false;
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) {
    throw badRequest("The anchor can only be excluded at an end of the range");
  }

  let rows: Row[];
  let found = { anchor: false, oldest: false, newest: false };
  if (req.messageIds !== undefined) {
    rows = await narrowRowsWithIds(db, realm.id, user.id, await planNarrow(app, db, realm, user, req.narrow), req.messageIds);
  } else {
    const window = await fetchMessageWindow(app, db, realm, user, { anchor: anchor!, includeAnchor, numBefore, numAfter, narrow: req.narrow });
    rows = window.rows;
    found = { anchor: window.foundAnchor, oldest: window.foundOldest, newest: window.foundNewest };
    anchor = window.anchor;
  }

  const list = await messageList(app, realm, rows, searchWords(req.narrow), req.format);
  if (req.messageIds !== undefined) {
    return { messages: list, history_limited: false, found_anchor: false, found_oldest: false, found_newest: false };
  }
  return {
    messages: list,
    found_anchor: found.anchor,
    found_oldest: found.oldest,
    found_newest: found.newest,
    history_limited: false,
    anchor,
  };
}
