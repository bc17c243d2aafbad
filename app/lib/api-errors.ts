/** Reading the API's error bodies: one line of text, errors per form field, and the extra fields some codes carry. */
import { isErrorCode, type ErrorBody, type ErrorCode, type ErrorDetail } from '../../shared/errors.ts';
import { issueWords } from './forms.ts';
import { locale, t } from './i18n/i18n.svelte.ts';

/** zod's issue codes: a VALIDATION_FAILED detail carrying one is put in words by `issueWords`. */
const ZOD_CODES = new Set(['too_small', 'too_big', 'invalid_format', 'invalid_type', 'invalid_value', 'unrecognized_keys', 'custom']);

/** The one-line text of an error: its message, then its hints. */
export function apiErrorMessage(error: ErrorBody): string {
  return [error.message, ...(error.hints ?? [])].join(' ');
}

/**
 * Field messages of an error's details, keyed by the last segment of each detail's path
 * (`domainProfile.painPoints` → `painPoints`); the Worker names paths after the zod contract.
 * Details are the API's English words: English readers get them as they are (they are the most
 * precise); other readers get the catalogue's words for the field's problem.
 */
export function fieldErrors(error: ErrorBody | null | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const detail of error?.details ?? []) {
    const key = detailField(detail);
    if (key && !(key in fields)) fields[key] = locale() === 'en' ? detail.message : localDetail(error!, detail, key);
  }
  return fields;
}

function localDetail(error: ErrorBody, detail: ErrorDetail, field: string): string {
  // Any other code's message was already put in the reader's language by the Worker.
  if (error.code !== 'VALIDATION_FAILED') return error.message;
  if (detail.code && ZOD_CODES.has(detail.code)) {
    // The Worker sends zod's bounds and format beside the code (worker/http/validate.ts).
    const words = issueWords({ code: detail.code, path: [field], minimum: detail.minimum, maximum: detail.maximum, format: detail.format, origin: detail.origin });
    return t(words.key, words.values);
  }
  return t('forms.rejected');
}

function detailField(detail: ErrorDetail): string | undefined {
  const raw = detail.path ?? detail.pointer;
  if (!raw) return undefined;
  const segments = raw.split(/[./]/).filter((s) => s !== '' && !/^\d+$/.test(s));
  return segments.at(-1);
}

/** A stale `baseRevision` answer carries the revision now stored. */
export function currentRevision(error: ErrorBody): number | undefined {
  return typeof error.currentRevision === 'number' ? error.currentRevision : undefined;
}

/** A PKG_NAME_CONFLICT answer proposes a free project name. */
export function suggestedName(error: ErrorBody): string | undefined {
  return typeof error.suggestedName === 'string' && error.suggestedName !== '' ? error.suggestedName : undefined;
}

