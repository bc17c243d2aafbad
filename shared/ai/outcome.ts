/**
 * What the session object answers over RPC: data, or an error body with its code. Errors do not
 * keep their class across the RPC boundary, so they travel as plain data and the Worker turns
 * them back into ApiErrors (worker/routes/ai-sessions.ts).
 */
import { ERROR_CODES, type ErrorBody, type ErrorCode } from '../errors.ts';
import { ApiError } from '../api-error.ts';

export type Outcome<T> = { ok: true; data: T } | { ok: false; status: number; error: ErrorBody };

export function ok<T>(data: T): Outcome<T> {
  return { ok: true, data };
}

export function fail(
  code: ErrorCode,
  options: { message?: string; hints?: string[]; details?: ErrorBody['details']; extra?: Record<string, unknown> } = {},
): Outcome<never> {
  return { ok: false, status: ERROR_CODES[code].status, error: new ApiError(code, options).toBody() };
}

/** Run `fn`, turning a thrown ApiError into a failed outcome (anything else propagates). */
export async function outcomeOf<T>(fn: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return ok(await fn());
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, status: error.status, error: error.toBody() };
    throw error;
  }
}
