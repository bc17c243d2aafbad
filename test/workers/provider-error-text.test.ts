/**
 * Whose words an AI provider's error shows (worker/llm/classify.ts): the provider's own text only
 * from an OpenAI-style error object in an answer labelled JSON, shortened and redacted; any other
 * body (an HTML page, plain text, other JSON) only our own words for its status. A base URL whose
 * name resolves to a private address cannot be refused by a Worker, so the connection test of the
 * AI settings must not read out an internal service's answer; the same holds for `turn.failed`.
 * Real Worker, real D1, the scripted OpenAI-compatible server playing the answers.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { FaultReply } from '../support/scripted-openai/types.ts';
import { signedInClient } from './client.ts';
import { scriptModel } from './scripted-model.ts';
import { connect, stepSession, supportDeskProject } from './sessions.ts';
import { send, turnEnd, useScriptedModel } from './turns.ts';

/** What an internal service behind a private address might answer: none of it may come back. */
const INTERNAL = 'internal-admin-4f9c: db_password=hunter2';
/** The provider's retries after the first attempt (worker/llm/retry-policy.ts): the fault is queued for every attempt. */
const ATTEMPTS = 4;

const HTML_500: FaultReply = { fault: 'http_error', status: 500, headers: { 'content-type': 'text/html; charset=utf-8' }, body: `<html><body><h1>Admin</h1><p>${INTERNAL}</p></body></html>` };
const MODEL_NOT_FOUND: FaultReply = {
  fault: 'http_error',
  status: 404,
  body: { error: { message: 'The model `gpt-9-imaginary` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } },
};

/** The connection test's verdict for a draft profile whose model answers `fault`. */
async function testedWith(fault: FaultReply) {
  const user = await signedInClient('Tester');
  const scripted = await scriptModel(env.SCRIPTED_OPENAI_URL, []);
  await scripted.queue(fault, ATTEMPTS);
  const res = await user.post('/api/users/me/llm-profile/test', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: env.SCRIPTED_OPENAI_URL,
    model: scripted.model,
    apiKey: 'sk-tester-0123456789abcdef',
    timeoutSeconds: 30,
    contextWindow: 128_000,
  });
  expect(res.status).toBe(200);
  return res.data as { ok: false; code: string; message: string; hints: string[] };
}

describe('the connection test of the AI settings', () => {
  it('does not quote an HTML error page: only our words for HTTP 500', async () => {
    const verdict = await testedWith(HTML_500);
    expect(verdict).toMatchObject({ ok: false, code: 'AI_PROVIDER_ERROR', message: 'The AI provider had a problem on its side (HTTP 500).' });
    expect(JSON.stringify(verdict)).not.toContain('internal-admin');
    expect(JSON.stringify(verdict)).not.toContain('Admin');
  });

  it('quotes an OpenAI-style error object: a 404 "model not found" says which model', async () => {
    const verdict = await testedWith(MODEL_NOT_FOUND);
    expect(verdict.code).toBe('AI_PROVIDER_ERROR');
    expect(verdict.message).toContain('(HTTP 404). The provider said: "The model `gpt-9-imaginary` does not exist or you do not have access to it."');
  });

  it('quotes a top-level {"message"} in JSON, and nothing of plain text, other JSON, or an error object labelled as text', async () => {
    const topLevel = await testedWith({ fault: 'http_error', status: 400, body: { message: 'max_tokens must be at least 1' } });
    expect(topLevel.message).toContain('The provider said: "max_tokens must be at least 1"');
    const refusals: FaultReply[] = [
      { fault: 'http_error', status: 403, headers: { 'content-type': 'text/plain' }, body: INTERNAL },
      { fault: 'http_error', status: 404, body: { detail: INTERNAL } },
      { fault: 'http_error', status: 400, headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ error: { message: INTERNAL } }) },
      { fault: 'http_error', status: 400, body: { error: { message: { text: INTERNAL } } } },
    ];
    for (const fault of refusals) {
      const verdict = await testedWith(fault);
      expect(verdict.code).toBe('AI_PROVIDER_ERROR');
      expect(verdict.message).not.toContain('The provider said');
      expect(JSON.stringify(verdict)).not.toContain('internal-admin');
    }
  });
});

describe('turn.failed', () => {
  async function failedTurn(fault: FaultReply) {
    const { owner, base } = await supportDeskProject();
    const scripted = await useScriptedModel(owner, []);
    await scripted.queue(fault, ATTEMPTS);
    const sessionId = await stepSession(owner, base);
    const watcher = await connect(owner, base, sessionId);
    const sent = await send(owner, `${base}/ai/sessions/${sessionId}`, 'Tighten this step.');
    expect(sent.status).toBe(202);
    const ended = await turnEnd(watcher, sent.data.turnId, 30_000);
    watcher.close();
    expect(ended.type).toBe('turn.failed');
    return ended.payload as { code: string; message: string; hints: string[] };
  }

  it('does not quote an HTML error page, and quotes an OpenAI-style 404', async () => {
    const html = await failedTurn(HTML_500);
    expect(html.message).toBe('The AI provider had a problem on its side (HTTP 500).');
    expect(JSON.stringify(html)).not.toContain('internal-admin');
    const missing = await failedTurn(MODEL_NOT_FOUND);
    expect(missing.message).toContain('The provider said: "The model `gpt-9-imaginary` does not exist or you do not have access to it."');
  });
});
