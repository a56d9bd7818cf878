/**
 * Rate limits at the HTTP edge, answered as Zulip's RateLimitMiddleware answers: every limited
 * response carries X-RateLimit-Limit, -Remaining and -Reset, and a request over the limit gets
 * RATE_LIMIT_HIT (429) with retry-after.
 */
import type { FastifyReply } from "fastify";
import type { AppContext } from "../context.js";
import type { RateLimitDecision, RateLimitDomain } from "../domain/rate_limits.js";
import { rateLimited } from "./errors.js";

function headersFor(d: RateLimitDecision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(Math.ceil(d.resetAt)),
  };
}

/** Refuses the request when the decision says so; otherwise puts the headers on its answer. */
export function applyDecision(reply: FastifyReply, decision: RateLimitDecision | null): void {
  if (!decision) return;
  if (decision.limited) throw rateLimited(decision.retryAfter, headersFor(decision));
  reply.headers(headersFor(decision));
}

/** Counts one attempt of `entity` in `domain`, refusing it past the limit. */
export async function countAttempt(app: AppContext, domain: RateLimitDomain, entity: string | number): Promise<RateLimitDecision | null> {
  const decision = await app.rateLimiter.hit(domain, entity);
  if (decision?.limited) throw rateLimited(decision.retryAfter, headersFor(decision));
  return decision;
}

/** Counts one request of `entity` in `domain`, refusing it past the limit, with the headers on the answer. */
export async function rateLimit(app: AppContext, reply: FastifyReply, domain: RateLimitDomain, entity: string | number): Promise<void> {
  applyDecision(reply, await countAttempt(app, domain, entity));
}
