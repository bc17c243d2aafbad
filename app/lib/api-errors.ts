/** Reading the API's error bodies: one line of text, errors per form field, and the extra fields some codes carry. */
import type { ErrorBody, ErrorDetail } from '../../shared/errors.ts';
/** The one-line text of an error: its message, then its hints. */
export function apiErrorMessage(error: ErrorBody): string {
  return [error.message, ...(error.hints ?? [])].join(' ');
}

/**
 * Field messages of a VALIDATION_FAILED error, keyed by the last segment of each detail's path
 * (`domainProfile.painPoints` → `painPoints`); the Worker names paths after the zod contract.
 */
export function fieldErrors(error: ErrorBody | null | undefined): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const detail of error?.details ?? []) {
    const key = detailField(detail);
    if (key && !(key in fields)) fields[key] = detail.message;
  }
  return fields;
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

