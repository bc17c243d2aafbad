/**
 * Many rows in one statement: rows packed as JSON arrays into parameters that D1 accepts, for
 * `INSERT … SELECT … FROM json_each(?)`. One statement per chunk instead of one per row: a batch
 * of 100 files is a handful of statements, and D1's limit of 100 bound parameters per statement
 * never binds (each chunk is ONE parameter).
 */

/**
 * D1 refuses a string or BLOB over 2,000,000 bytes. A chunk is counted in UTF-16 code units
 * (no encoding pass): each is at most 3 UTF-8 bytes, so 600,000 of them stay under the limit.
 */
export const JSON_PARAM_BUDGET = 600_000;

export interface PackedRows<T> {
  /** Each a JSON array of row arrays, at most `budget` code units. */
  chunks: string[];
  /** Rows whose own JSON is over the budget: the caller writes each with plain bound parameters. */
  oversize: T[];
}

/** Packs `rows` (each encoded by `encode` to an array of scalars) into chunks, in order. */
export function packRows<T>(rows: readonly T[], encode: (row: T) => unknown[], budget = JSON_PARAM_BUDGET): PackedRows<T> {
  const chunks: string[] = [];
  const oversize: T[] = [];
  let parts: string[] = [];
  let size = 2;
  for (const row of rows) {
    const json = JSON.stringify(encode(row));
    if (json.length + 2 > budget) {
      oversize.push(row);
      continue;
    }
    if (parts.length > 0 && size + 1 + json.length > budget) {
      chunks.push(`[${parts.join(',')}]`);
      parts = [];
      size = 2;
    }
    size += (parts.length > 0 ? 1 : 0) + json.length;
    parts.push(json);
  }
  if (parts.length > 0) chunks.push(`[${parts.join(',')}]`);
  return { chunks, oversize };
}

/** `json_extract(value, '$[i]')` for columns 0…n-1 of a `json_each` row: the i-th scalar, NULL for JSON null. */
export function jsonColumns(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `json_extract(value, '$[${i}]')`);
}

/**
 * A statement whose SQL text is already final (`?` placeholders, `params` in their order): the
 * bulk statements' text is fixed per shape, so it is built once, not walked by drizzle per apply.
 */
export function rawStatement(text: string, params: unknown[]): { toSQL(): { sql: string; params: unknown[] } } {
  return { toSQL: () => ({ sql: text, params }) };
}
