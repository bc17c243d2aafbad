/**
 * Typed client for /api/users/me/llm-profile (read, save, connection test), used by the AI
 * settings page through `LlmProfileSettings` (llm-profile.svelte.ts). Same result type and
 * conventions as lib/api.ts: `{ok: true, data}` or `{ok: false, error, status}`, JSON bodies,
 * `credentials: 'same-origin'`, a 401 "sign in again" sends the user to /login?next=….
 *
 * lib/api.ts does not export its transport (`request`), so `call` below is the smallest local
 * equivalent of it; once api.ts exports one, these three functions should use it instead.
 * (A 401 here redirects like api.ts does, but cannot notify api.ts's `onUnauthorized`
 * listeners, which only api.ts itself can fire.)
 */
import { goto } from '$app/navigation';
import { isErrorCode, type ErrorBody, type ErrorCode } from '../../shared/errors.ts';
import type { LlmProfileTestResult, LlmProfileView, TestLlmProfileInput, UpdateLlmProfileInput } from '../../shared/api/index.ts';
import { loginHref, PUBLIC_PATHS, type ApiResult } from './api.ts';

type FetchLike = typeof globalThis.fetch;

const PATH = '/api/users/me/llm-profile';

/** The 401 codes that mean "sign in again" (as in api.ts). */
const SESSION_CODES: ReadonlySet<ErrorCode> = new Set(['AUTH_MISSING_TOKEN', 'AUTH_INVALID_TOKEN', 'AUTH_TOKEN_EXPIRED']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function failure(status: number, message: string, hints?: string[]): ApiResult<never> {
  return { ok: false, status, error: { code: 'INTERNAL_ERROR', message, ...(hints ? { hints } : {}) } };
}

function readError(status: number, value: unknown): ErrorBody {
  if (isRecord(value) && typeof value.code === 'string' && typeof value.message === 'string') {
    return { ...value, code: isErrorCode(value.code) ? value.code : 'INTERNAL_ERROR', message: value.message };
  }
  return { code: 'INTERNAL_ERROR', message: `The server answered with status ${status} and no usable error.` };
}

async function call<T>(fetchFn: FetchLike, method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchFn(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    return failure(0, 'The server could not be reached.', ['Check your connection and try again in a moment.']);
  }
  let payload: unknown;
  try {
    payload = await response.json();
  } catch {
    return failure(response.status, `The server answered with status ${response.status} and no readable body.`, ['Try again in a moment.']);
  }
  if (!isRecord(payload) || !('data' in payload) || !('error' in payload)) {
    return failure(response.status, `The server answered with status ${response.status} in an unexpected form.`);
  }
  if (response.ok && payload.error === null) return { ok: true, data: payload.data as T };
  const error = readError(response.status, payload.error);
  if (response.status === 401 && SESSION_CODES.has(error.code) && !PUBLIC_PATHS.has(window.location.pathname)) {
    void goto(loginHref(window.location.pathname + window.location.search), { replaceState: true });
  }
  return { ok: false, error, status: response.status };
}

/** The LLM profile API bound to one `fetch` (a `load` function's, or the browser's). */
export function createLlmProfileApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  return {
    /** The caller's profile (created as `disabled` on first read); the key only as `apiKeyMasked`. */
    get: () => call<LlmProfileView>(fetchFn, 'GET', PATH),
    /** Saves the whole profile; `apiKey` absent keeps the saved key, `null` removes it. Health resets to `unknown`. */
    save: (input: UpdateLlmProfileInput) => call<LlmProfileView>(fetchFn, 'PUT', PATH, input),
    /** Tests these values without saving (no `apiKey`: the saved key, if the server is the same). */
    testDraft: (input: TestLlmProfileInput) => call<LlmProfileTestResult>(fetchFn, 'POST', `${PATH}/test`, input),
    /** Tests the saved profile and records its health (no body). */
    testSaved: () => call<LlmProfileTestResult>(fetchFn, 'POST', `${PATH}/test`),
  };
}

export type LlmProfileApi = ReturnType<typeof createLlmProfileApi>;

/** On the browser's own `fetch`, for event handlers and the settings state. */
export const llmProfileApi: LlmProfileApi = createLlmProfileApi();
