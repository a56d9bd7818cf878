/**
 * Unique indexes (migration 021) settle races that a check before a write cannot: the second of
 * two parallel creations fails in the database, and the action answers with the same error its
 * check gives.
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  // PostgreSQL's unique_violation, and better-sqlite3's extended code for the same.
  return e?.code === "23505" || e?.code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** Runs one write; if it breaks a unique index, throws `taken()` instead. */
export async function unlessTaken<T>(write: Promise<T>, taken: () => Error): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}
