/**
 * Typed client for /api/users/me/llm-profile (read, save, connection test), used by the AI
 * settings page through `LlmProfileSettings` (llm-profile.svelte.ts). Same result type and
 * conventions as lib/api.ts: `{ok: true, data}` or `{ok: false, error, status}`, JSON bodies,
 * `credentials: 'same-origin'`, a 401 "sign in again" sends the user to /login?next=….
 */
import type { LlmProfileTestResult, LlmProfileView, TestLlmProfileInput, UpdateLlmProfileInput } from '../../shared/api/index.ts';
import { request, type FetchLike } from './api.ts';

const PATH = '/users/me/llm-profile';

/** The LLM profile API bound to one `fetch` (a `load` function's, or the browser's). */
export function createLlmProfileApi(fetchFn: FetchLike = (input, init) => globalThis.fetch(input, init)) {
  return {
    /** The caller's profile (created as `disabled` on first read); the key only as `apiKeyMasked`. */
    get: () => request<LlmProfileView>(fetchFn, 'GET', PATH),
    /** Saves the whole profile; `apiKey` absent keeps the saved key, `null` removes it. Health resets to `unknown`. */
    save: (input: UpdateLlmProfileInput) => request<LlmProfileView>(fetchFn, 'PUT', PATH, { body: input }),
    /** Tests these values without saving (no `apiKey`: the saved key, if the server is the same). */
    testDraft: (input: TestLlmProfileInput) => request<LlmProfileTestResult>(fetchFn, 'POST', `${PATH}/test`, { body: input }),
    /** Tests the saved profile and records its health (no body). */
    testSaved: () => request<LlmProfileTestResult>(fetchFn, 'POST', `${PATH}/test`),
  };
}

export type LlmProfileApi = ReturnType<typeof createLlmProfileApi>;

/** On the browser's own `fetch`, for event handlers and the settings state. */
export const llmProfileApi: LlmProfileApi = createLlmProfileApi();
