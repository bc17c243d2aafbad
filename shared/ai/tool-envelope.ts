/**
 * The uniform result of every `builder.*` tool: `{ok, data, error, meta}`. The
 * same envelope goes back to the model as the `role=tool` message and into tool-run records.
 */
import { ERROR_CODES, type ErrorCode } from '../errors.ts';

export interface ToolError {
  code: ErrorCode;
  message: string;
  hints?: string[];
  /** Every violation, when there are several (e.g. a changeSet with three broken operations). */
  details?: Array<{ code?: string; path?: string; message: string; hint?: string }>;
}

export interface ToolMeta {
  /** Revision of the scope the data came from (null when it has none, e.g. a new object). */
  revision: number | null;
  /** True when the data comes from the session's overlay rather than the stored package. */
  staged?: boolean;
  [extra: string]: unknown;
}

export type ToolEnvelope<T = unknown> =
  | { ok: true; data: T; error: null; meta: ToolMeta }
  | { ok: false; data: null; error: ToolError; meta: ToolMeta };

export function toolOk<T>(data: T, meta: ToolMeta): ToolEnvelope<T> {
  return { ok: true, data, error: null, meta };
}

export function toolError(
  code: ErrorCode,
  options: { message?: string; hints?: string[]; details?: ToolError['details']; meta?: Partial<ToolMeta> } = {},
): ToolEnvelope<never> {
  const error: ToolError = { code, message: options.message ?? ERROR_CODES[code].message };
  if (options.hints?.length) error.hints = options.hints;
  if (options.details?.length) error.details = options.details;
  return { ok: false, data: null, error, meta: { revision: null, ...options.meta } };
}
