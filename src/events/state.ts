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
   * Must be harmless if the state already reflects the event. Without it, such events are left
   * in the queue for the client to receive.
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
 * Applies the events queued during the fetch, in order, and returns the id of the last one the
 * state now accounts for (−1 if none). Events no selected section follows are accounted for as
 * they are; an event a selected section follows but cannot apply stops the walk, so it and
 * everything after it stay queued for the client. Sections then finish their state.
 */
export function applyQueuedEvents(state: State, events: Event[], ctx: StateContext, selected: StateSection[]): number {
  let lastEventId = -1;
  for (const event of events) {
    const followers = selected.filter((s) => s.eventTypes?.includes(String(event.type)));
    if (followers.some((s) => !s.apply)) break;
    for (const s of followers) s.apply!(state, event, ctx);
    lastEventId = event.id as number;
  }
  for (const s of selected) s.finish?.(state, ctx);
  return lastEventId;
}
