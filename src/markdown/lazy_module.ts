/**
 * Modules the renderer loads when a message first needs them (KaTeX, re2js), to keep the idle
 * server small. Loading one is not the message's work: on a busy machine it can take longer than
 * the render deadline, so its time is left out of the deadline.
 */
import { createRequire } from "node:module";
import { outsideRenderDeadline } from "./budget.js";

const require = createRequire(import.meta.url);

export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= outsideRenderDeadline(() => require(name) as T));
}
