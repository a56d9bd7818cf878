/**
 * Row ids are 32-bit integer columns. PostgreSQL refuses to compare one with a number outside
 * that range, so ids that cannot exist are recognized before any query.
 */
export const MAX_ROW_ID = 2147483647;

export const isStorableId = (id: number): boolean => Number.isSafeInteger(id) && id > 0 && id <= MAX_ROW_ID;
