/**
 * Work a request starts but does not wait for (a realm export, a pass of the outbox worker).
 * Failures are logged, never thrown at anyone; tests wait for the work with `backgroundSettled`.
 */
import type { AppContext } from "../context.js";

const running = new WeakMap<AppContext, Set<Promise<void>>>();

export function startBackground(app: AppContext, what: string, work: () => Promise<void>): void {
  let tasks = running.get(app);
  if (!tasks) {
    tasks = new Set();
    running.set(app, tasks);
  }
  const task: Promise<void> = work()
    .catch((err: unknown) => app.log.error({ err, what }, "background work failed"))
    .finally(() => tasks.delete(task));
  tasks.add(task);
}

/** Resolves once no background work is left, including work started by the work awaited. */
export async function backgroundSettled(app: AppContext): Promise<void> {
  const tasks = running.get(app);
  while (tasks?.size) await Promise.all([...tasks]);
}
