/**
 * Scripts a model of the scripted OpenAI-compatible server from a test inside workerd, over the server's
 * data-only control API (test/support/scripted-openai/control.ts; the pool's server has `control: true`).
 * Each call makes a fresh model name, so test files running in parallel never share a script.
 * Runtime code here uses `fetch` only; the support folder is imported for its types.
 *
 *   const scripted = await scriptModel(env.SCRIPTED_OPENAI_URL, [{ toolCalls: [...] }, { content: 'Done.' }]);
 *   // configure the profile with scripted.model, run the turn, then:
 *   expect((await scripted.requests())[1]?.body).toMatchObject({ messages: expect.arrayContaining([...]) });
 */
import type {
  CreateScriptInput,
  PendingView,
  RecordedChat,
  RecordedChatsView,
  ScriptCreatedView,
  ScriptStep,
} from '../support/scripted-openai/control.ts';
import type { Reply, ServerQuirks } from '../support/scripted-openai/types.ts';

export type { RecordedChat, ScriptStep };

export interface ScriptModelOptions {
  /** The reply once every step has been played; a short text unless set. */
  whenDone?: Reply;
  /** Readable part of the model name: `script-<name>-<n>` (letters, digits, ".", "_", "-"). */
  name?: string;
  /** How the model's server refuses what it cannot do (a parameter it does not know, tools). */
  quirks?: ServerQuirks;
}

export interface ScriptedModel {
  /** The model name to put in the LLM profile; a request with it plays steps[k], k = assistant messages in it. */
  model: string;
  /** Plays `reply` for this model's next `times` (1) requests, before its script. */
  queue(reply: ScriptStep, times?: number): Promise<void>;
  /** This model's chat completion requests, oldest first, Authorization redacted. */
  requests(): Promise<RecordedChat[]>;
  /** How many of this model's requests the server is still answering (0 once an aborted call is closed). */
  pending(): Promise<number>;
  /** Forgets the script, the queue and the recordings. */
  forget(): Promise<void>;
}

/** The control API lives at the server root; `SCRIPTED_OPENAI_URL` ends in /v1. */
export function controlRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

async function call<T>(url: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Scripted model control ${method} ${url} answered ${res.status}: ${text}`);
  // Our own test server, typed by control.ts's views: the one place this client trusts a body.
  return JSON.parse(text) as T;
}

export async function scriptModel(baseUrl: string, steps: ScriptStep[], options: ScriptModelOptions = {}): Promise<ScriptedModel> {
  const root = `${controlRoot(baseUrl)}/_scripted`;
  const input: CreateScriptInput = { steps, ...options };
  const { model } = await call<ScriptCreatedView>(`${root}/scripts`, 'POST', input);
  const modelUrl = `${root}/models/${encodeURIComponent(model)}`;
  return {
    model,
    async queue(reply, times = 1) {
      await call<unknown>(`${modelUrl}/next`, 'POST', { reply, times });
    },
    async requests() {
      return (await call<RecordedChatsView>(`${modelUrl}/requests`, 'GET')).requests;
    },
    async pending() {
      return (await call<PendingView>(`${modelUrl}/pending`, 'GET')).inFlight;
    },
    async forget() {
      await call<unknown>(modelUrl, 'DELETE');
    },
  };
}
