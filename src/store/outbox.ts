import type { Selectable } from "kysely";
import type { Executor, OutboxJobTable } from "./schema.js";
import type { Dialect } from "./db.js";

export type OutboxJobRow = Selectable<OutboxJobTable>;

export async function insertOutboxJob(db: Executor, kind: string, payload: unknown, now: number): Promise<void> {
  await db.insertInto("outbox_jobs").values({ kind, payload: JSON.stringify(payload), next_attempt_at: now, created_at: now }).execute();
}

/**
 * Takes up to `limit` jobs due at `now`: counts an attempt for each and keeps the others off it
 * until `leaseUntil`. One statement, so only one worker takes a job: on PostgreSQL rows another
 * worker is taking are skipped rather than waited for, and are no longer due once it commits.
 */
export async function claimDueOutboxJobs(db: Executor, dialect: Dialect, now: number, leaseUntil: number, limit: number): Promise<OutboxJobRow[]> {
  return db
    .updateTable("outbox_jobs")
    .set((eb) => ({ attempts: eb("attempts", "+", 1), next_attempt_at: leaseUntil }))
    .where("id", "in", (eb) =>
      eb
        .selectFrom("outbox_jobs")
        .select("id")
        .where("next_attempt_at", "<=", now)
        .orderBy("next_attempt_at")
        .orderBy("id")
        .limit(limit)
        .$if(dialect === "postgres", (q) => q.forUpdate().skipLocked()),
    )
    .where("next_attempt_at", "<=", now)
    .returningAll()
    .execute();
}

/** Deletes a job this worker took, unless another worker has taken it since (its lease ran out). */
export async function deleteOutboxJob(db: Executor, job: OutboxJobRow): Promise<void> {
  await db.deleteFrom("outbox_jobs").where("id", "=", job.id).where("attempts", "=", job.attempts).execute();
}

/** Makes a job this worker took due again at `at`, unless another worker has taken it since. */
export async function retryOutboxJobAt(db: Executor, job: OutboxJobRow, at: number): Promise<void> {
  await db.updateTable("outbox_jobs").set({ next_attempt_at: at }).where("id", "=", job.id).where("attempts", "=", job.attempts).execute();
}

/** When the next job falls due (or the next lease runs out), if there is any job. */
export async function nextOutboxAttemptAt(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom("outbox_jobs")
    .select((eb) => eb.fn.min("next_attempt_at").as("next"))
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
}

/**
 * Deletes a job this worker took, inside the transaction that does the job's work, so the work
 * is committed once: false (and the caller rolls back) if another worker has taken it since.
 */
export async function takeOutboxJob(db: Executor, job: OutboxJobRow): Promise<boolean> {
  const res = await db.deleteFrom("outbox_jobs").where("id", "=", job.id).where("attempts", "=", job.attempts).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
