/**
 * Bounds on one rendering, as Zulip bounds its renderer: content that nests too deeply, renders
 * too large or takes too long is refused with "Unable to render message" (Zulip's
 * MarkdownRenderingError, raised on recursion overflow, on output over 100 × MAX_MESSAGE_LENGTH
 * and after a 5-second timeout). The time bound is a last resort for inputs no other bound
 * catches; it is checked at the renderer's loops. Rendering is synchronous, so one deadline at a
 * time is enough.
 */
import { badRequest } from "../http/errors.js";
import { LIMITS } from "../domain/limits.js";

/** Fences (quotes, spoilers) and blocks (quotes, lists) nested deeper than this are refused. */
export const MAX_NESTING = 100;
export const MAX_RENDERED_LENGTH = LIMITS.maxMessageLength * 100;
const TIME_LIMIT_MS = 1000;

export const unableToRender = () => badRequest("Unable to render message");

let deadline = Infinity;

/** Runs one rendering under the time bound. */
export function withRenderDeadline<T>(render: () => T): T {
  const outer = deadline;
  deadline = Math.min(outer, Date.now() + TIME_LIMIT_MS);
  try {
    return render();
  } finally {
    deadline = outer;
  }
}

/** Runs work that is not the message's (loading a module): the time it takes extends the deadline. */
export function outsideRenderDeadline<T>(work: () => T): T {
  const start = Date.now();
  try {
    return work();
  } finally {
    deadline += Date.now() - start;
  }
}

/** Called from the renderer's loops: refuses the message once its time is up. */
export function checkRenderDeadline(): void {
  if (Date.now() > deadline) throw unableToRender();
}
