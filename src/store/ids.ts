/** Row ids are 32-bit integers on PostgreSQL; larger numbers can name no row and must not reach SQL. */
export const MAX_ROW_ID = 2147483647;

export const isPossibleId = (n: number) => Number.isSafeInteger(n) && n >= 0 && n <= MAX_ROW_ID;
