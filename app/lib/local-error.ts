/**
 * An error made in the browser (the server could not be reached, an answer that never came), as an
 * `ErrorBody` whose message and hints are read from the catalogue each time they are shown: a
 * language switch re-renders it in the new language, where words fixed at creation would stay.
 */
import type { ErrorBody, ErrorCode } from '../../shared/errors.ts';
import { t } from './i18n/i18n.svelte.ts';
import type { MessageKey, MessageValues } from './i18n/catalogue.ts';

/** Errors that say the server could not be reached: stale once the connection is back. */
const unreachable = new WeakSet<object>();

export function isUnreachable(error: ErrorBody | null | undefined): boolean {
  return !!error && unreachable.has(error);
}

export function localError(code: ErrorCode, key: MessageKey, values?: MessageValues, hintKeys: MessageKey[] = []): ErrorBody {
  const body = { code } as ErrorBody;
  Object.defineProperty(body, 'message', { enumerable: true, get: () => t(key, values) });
  if (hintKeys.length > 0) Object.defineProperty(body, 'hints', { enumerable: true, get: () => hintKeys.map((hint) => t(hint)) });
  return body;
}

/** The server could not be reached: check the connection. */
export function unreachableError(): ErrorBody {
  const error = localError('INTERNAL_ERROR', 'network.unreachable', undefined, ['network.checkConnection']);
  unreachable.add(error);
  return error;
}
