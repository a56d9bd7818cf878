/** Records what is published on the event bus while a test runs. */
import type { Notice } from "../../src/events/bus.js";
import { afterEach, beforeEach } from "node:test";
import type { TestServer } from "./server.js";

export class EventLog {
  readonly notices: Notice[] = [];
  private readonly off: () => void;

  constructor(srv: TestServer) {
    this.off = srv.app.bus.subscribe((n) => this.notices.push(n));
  }

  /** Notices whose event has this type (and op, if given). */
  of(type: string, op?: string): Notice[] {
    return this.notices.filter((n) => n.event.type === type && (op === undefined || n.event.op === op));
  }

  stop(): Notice[] {
    this.off();
    return this.notices;
  }
}

/** Records each test of the file on its own: `use` receives a fresh log before every test. */
export function logEventsPerTest(server: () => TestServer, use: (log: EventLog) => void): void {
  let log: EventLog | undefined;
  beforeEach(() => {
    log = new EventLog(server());
    use(log);
  });
  afterEach(() => log?.stop());
}
