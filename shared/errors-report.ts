/**
 * Reporting unexpected errors without leaking what they carry. The Worker's error handler, the
 * session object's turn runner and D1 writers log through `logError`; unique-constraint checks go
 * through `isUniqueViolation`. Pure and isomorphic: no Worker or Durable Object imports.
 *
 * Why: drizzle's DrizzleQueryError message is "Failed query: <sql>\nparams: <values>", so logging
 * the error object printed emails, password hashes and salts, key ciphertext and package text.
 * A log line here is the error's name, its code and a redacted message of each cause; clients
 * and models get only a code and a plain message (never this report).
 */

export interface ErrorReport {
  name: string;
  code?: string;
  /** The messages of the error and its causes, outermost first, each redacted and cut. */
  message: string;
  /** Stack frames only (never the message line the stack starts with). */
  frames?: string[];
}

const MAX_DEPTH = 5;
const MAX_MESSAGE_CHARS = 300;
const MAX_FRAMES = 6;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < MAX_DEPTH && !chain.includes(current)) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

/**
 * Cuts whatever may be data rather than a description: drizzle's "params:" tail, quoted strings,
 * emails and long base64/hex runs (hashes, salts, keys, tokens). SQL text without its values stays.
 */
export function redactMessage(message: string): string {
  const withoutParams = message.split(/\n?\s*params:/i)[0] ?? '';
  const redacted = withoutParams
    .replace(/'(?:[^']|'')*'/g, "'…'")
    .replace(/[^\s@"'<>()]+@[^\s@"'<>()]+/g, '…@…')
    // snake_case runs are SQL identifiers and SQLite error codes, worth keeping.
    .replace(/[A-Za-z0-9+/_-]{20,}={0,2}/g, (run) => (/^[a-z_]+$|^[A-Z_]+$/.test(run) ? run : '…'))
    .replace(/\s+/g, ' ')
    .trim();
  return redacted.length > MAX_MESSAGE_CHARS ? `${redacted.slice(0, MAX_MESSAGE_CHARS)}…` : redacted;
}

function codeOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const code = (value as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,64}$/i.test(code) ? code : undefined;
}

/** Name, code and a redacted message (with causes) of anything thrown; safe to log. */
export function describeError(error: unknown): ErrorReport {
  const chain = causes(error);
  const message = chain
    .map((item) => (item instanceof Error ? `${item.name}: ${redactMessage(item.message)}` : `thrown ${typeof item}`))
    .join(' <- ');
  const code = chain.map(codeOf).find((c) => c !== undefined);
  const frames =
    error instanceof Error && typeof error.stack === 'string'
      ? error.stack
          .split('\n')
          .filter((line) => /^\s+at /.test(line))
          .slice(0, MAX_FRAMES)
          .map((line) => line.trim())
      : [];
  return {
    name: error instanceof Error ? error.name : typeof error,
    ...(code ? { code } : {}),
    message,
    ...(frames.length ? { frames } : {}),
  };
}

export interface LogErrorOptions {
  /**
   * A further pass over the finished line, for callers that know a secret the generic redaction
   * could miss (an API key shorter than an opaque run, or spelled with dots): worker/llm/redact.ts.
   */
  redact?: (line: string) => string;
}

/**
 * The one way to log an unexpected error. `context` holds ids and counts only (a session id, a
 * path), never request bodies, cookies, keys or values.
 */
export function logError(
  where: string,
  error: unknown,
  context: Record<string, string | number | null | undefined> = {},
  options: LogErrorOptions = {},
): void {
  const line = JSON.stringify({ ...context, error: describeError(error) });
  console.error(where, options.redact ? options.redact(line) : line);
}

/**
 * True when the error (or one of its causes: drizzle wraps D1's error) is a violated constraint of
 * `kind`, optionally on one column ("users.email"). Reads the messages only to decide; they are never
 * returned, so a caller cannot pass the query's text on by accident.
 */
export function isConstraintViolation(error: unknown, kind: 'UNIQUE' | 'NOT NULL', column?: string): boolean {
  const pattern = new RegExp(`${kind} constraint failed: ([^:]+)`);
  return causes(error).some((item) => {
    if (!(item instanceof Error)) return false;
    const match = pattern.exec(item.message);
    if (!match) return false;
    return column === undefined || match[1]!.split(',').some((c) => c.trim() === column);
  });
}

/** A violated UNIQUE constraint (see isConstraintViolation). */
export function isUniqueViolation(error: unknown, column?: string): boolean {
  return isConstraintViolation(error, 'UNIQUE', column);
}
