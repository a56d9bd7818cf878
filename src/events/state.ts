/**
 * The initial state POST /register returns, assembled from sections. Each feature registers its
 * own section (which `fetch_event_types` select it, what it returns, which events it follows)
 * from its own module, and register just walks the registry: adding a feature never touches a
 * central switch. Section modules are listed in `sections/index.ts`.
 */
import type { AppContext } from "../context.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import type { NarrowTerm } from "../domain/event_narrow.js";
import type { ClientCapabilities, Event } from "./shaping.js";

export interface RegisterOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  presenceHistoryLimitDays: number | undefined;
  includeSubscribers: boolean | "partial";
  capabilities: ClientCapabilities;
  narrow: readonly NarrowTerm[];
  allPublicStreams: boolean;
  /** What the queue delivers; null = everything. */
  eventTypes: readonly string[] | null;
  /** What initial state to return; null = everything. */
  fetchEventTypes: readonly string[] | null;
}

export type State = Record<string, unknown>;

export interface StateContext {
  app: AppContext;
  user: UserRow;
  realm: Realm;
  options: RegisterOptions;
  /** Whether the client asked for the initial state of this type. */
  want(type: string): boolean;
  /** Values several sections compute once per register call (group memberships...). */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
}

export interface StateSection {
  /** For diagnostics only. */
  name: string;
  /** The `fetch_event_types` that select this section (any of them, or all with `requireAll`). */
  fetchTypes: readonly string[];
  requireAll?: boolean;
  /** Event types that change this section's data. */
  eventTypes?: readonly string[];
  fetch(ctx: StateContext): Promise<State>;
  /**
   * Brings fetched state up to date with an event that was queued while it was being fetched.
   * Must be harmless if the state already reflects the event. Without it, the section is read
   * again when such an event is queued meanwhile.
   */
  apply?(state: State, event: Event, ctx: StateContext): void;
  /** Turns a working form kept for `apply` into what clients get (after all events are applied). */
  finish?(state: State, ctx: StateContext): void;
}

const sections: StateSection[] = [];

export function registerStateSection(section: StateSection): void {
  sections.push(section);
}

export function createStateContext(app: AppContext, user: UserRow, realm: Realm, options: RegisterOptions): StateContext {
  const wanted = options.fetchEventTypes ?? options.eventTypes;
  const wantedSet = wanted ? new Set(wanted) : null;
  const memos = new Map<string, Promise<unknown>>();
  return {
    app,
    user,
    realm,
    options,
    want: (type) => wantedSet === null || wantedSet.has(type),
    memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
      let value = memos.get(key);
      if (!value) {
        value = compute();
        memos.set(key, value);
      }
      return value as Promise<T>;
    },
  };
}

export function selectedSections(ctx: StateContext): StateSection[] {
  return sections.filter((s) => (s.requireAll ? s.fetchTypes.every(ctx.want) : s.fetchTypes.some(ctx.want)));
}

/**
 * Sections fetched at once on PostgreSQL. Each waits mostly on round trips to the database, and
 * the pool has connections to spare; a few at a time leave the rest to other requests. SQLite
 * runs one statement at a time whatever the callers do.
 */
const CONCURRENT_SECTIONS = { postgres: 4, sqlite: 1 } as const;

export async function fetchInitialState(ctx: StateContext, selected: StateSection[]): Promise<State> {
  const parts: State[] = [];
  let next = 0;
  const fetchRemaining = async () => {
    while (next < selected.length) {
      const i = next++;
      parts[i] = await selected[i].fetch(ctx);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_SECTIONS[ctx.app.dialect] }, fetchRemaining));
  // In the registry's order, whatever order they finished in.
  return Object.assign({}, ...parts) as State;
}

/**
 * How many times sections are read again for events queued meanwhile. A client keeps the events
 * that arrive after the last reading, and may see one of them twice only if every reading met a
 * new one.
 */
const REREADS = 3;

/**
 * Brings the state up to date with the events queued while it was read (`pending` returns them
 * all, oldest first) and returns the id of the last one it accounts for (−1 if none): a section
 * that follows an event applies it, or is read again; an event is queued only after its change
 * committed, so a section read after seeing it reflects it. Zulip's clients apply every event
 * after `last_event_id` to the state, so one the state already shows would be applied twice.
 * Sections then finish their state.
 */
export async function settleQueuedEvents(
  state: State,
  ctx: StateContext,
  selected: StateSection[],
  pending: () => Promise<Event[]>,
): Promise<number> {
  const followers = selected.filter((s) => s.eventTypes?.length);
  // Per section, the first event its state may not reflect yet.
  const from = new Map(followers.map((s) => [s, 0]));
  let events = await pending();
  for (let reads = 0; ; reads++) {
    const stale: StateSection[] = [];
    for (const s of followers) {
      const follows = events.slice(from.get(s)).filter((e) => s.eventTypes!.includes(String(e.type)));
      if (follows.length && !s.apply) stale.push(s);
      else for (const e of follows) s.apply!(state, e, ctx);
      from.set(s, events.length);
    }
    if (!stale.length) break;
    Object.assign(state, await fetchInitialState(createStateContext(ctx.app, ctx.user, ctx.realm, ctx.options), stale));
    if (reads + 1 === REREADS) break;
    events = await pending();
  }
  for (const s of selected) s.finish?.(state, ctx);
  return events.length ? (events[events.length - 1].id as number) : -1;
}
