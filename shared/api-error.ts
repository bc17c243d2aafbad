/** The one error type of the API: a code from shared/errors.ts, rendered by app.onError. */
import { ERROR_CODES, type ErrorBody, type ErrorCode, type ErrorDetail } from './errors.ts';

export interface ApiErrorOptions {
  message?: string;
  hints?: string[];
  details?: ErrorDetail[];
  /** Extra fields for the error body, e.g. `currentRevision` on a revision conflict. */
  extra?: Record<string, unknown>;
  status?: number;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly hints: string[] | undefined;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.message ?? ERROR_CODES[code].message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.hints = options.hints;
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    return {
      ...this.extra,
      code: this.code,
      message: this.message,
      ...(this.hints?.length ? { hints: this.hints } : {}),
      ...(this.details?.length ? { details: this.details } : {}),
    };
  }
}
