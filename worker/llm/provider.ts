// The LLM provider adapter the session engine uses: one streamed chat completion against any
// OpenAI-compatible provider, with an explicit retry policy, a total deadline, caller abort, and errors
// mapped to the product's codes with the key redacted — in errors and in the answer, wherever the model
// echoes it (streamed deltas included). Runs in Workers: fetch-based only, no node: APIs.

import OpenAI, { APIError, type ClientOptions } from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { providerEndpoint } from './base-url.ts';
import { classifyFailure, malformedError, streamBrokenError, timeoutError, type FailureContext } from './classify.ts';
import { rejectedOptionalParameter } from './provider-quirks.ts';
import type { ProviderError } from './provider-error.ts';
import { redactChatOutcome } from './redact-result.ts';
import { retryDelayMs, sleep as defaultSleep } from './retry-policy.ts';
import { StreamRedactor } from './stream-redactor.ts';
import { CallbackError, StreamAssembler } from './stream-assembler.ts';
import { withEstimatedUsage } from './usage-estimate.ts';
import { withTextToolCalls } from './text-tool-calls.ts';
import type { ChatResult, ProviderProfile, StreamChatRequest } from '../../shared/llm/types.ts';
import type { ChatOutcome, ProbeResult } from './chat-outcome.ts';

export interface ProviderOptions {
  /** Replaces the global fetch (tests, or a Workers service binding). */
  fetch?: ClientOptions['fetch'];
  /** Waits between retries; resolves early when the signal aborts. Tests pass a recording stub. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Jitter source for the backoff, in [0, 1). */
  random?: () => number;
  now?: () => number;
}

export interface ChatProvider {
  /** One assistant turn, streamed. Resolves to an outcome; never rejects for provider failures. */
  streamChat(request: StreamChatRequest): Promise<ChatOutcome>;
  /** "Test connection": a tiny non-streamed completion. */
  probe(): Promise<ProbeResult>;
}

/** "Test connection" should answer quickly even when the profile allows long turns. */
export const PROBE_TIMEOUT_CAP_SECONDS = 30;
/** Lets our own deadline fire before the SDK's per-request timeout, so every timeout is classified the same way. */
const SDK_TIMEOUT_SLACK_MS = 1_000;

function isChatCompletion(value: unknown): value is ChatCompletion {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}

/** A 400 that names max_tokens: newer OpenAI models only accept max_completion_tokens. */
function rejectsMaxTokens(error: unknown): boolean {
  return error instanceof APIError && error.status === 400 && (error.param === 'max_tokens' || /max_completion_tokens/.test(error.message));
}

export function createChatProvider(profile: ProviderProfile, options: ProviderOptions = {}): ChatProvider {
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const secrets = profile.apiKey ? [profile.apiKey] : [];
  const endpoint = providerEndpoint(profile.baseUrl);
  const client = new OpenAI({
    baseURL: endpoint.baseURL,
    ...(endpoint.defaultQuery ? { defaultQuery: endpoint.defaultQuery } : {}),
    // The SDK insists on a key; without one we send a placeholder and drop the header below.
    apiKey: profile.apiKey ?? 'no-key',
    // Azure reads the key from `api-key`, and must not get it twice.
    ...(!profile.apiKey
      ? { defaultHeaders: { Authorization: null } }
      : endpoint.keyHeader === 'api-key'
        ? { defaultHeaders: { Authorization: null, 'api-key': profile.apiKey } }
        : {}),
    // Explicit nulls keep OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment out of our requests.
    organization: null,
    project: null,
    maxRetries: 0,
    logLevel: 'off',
    // A redirect could point the Worker at a private address (SSRF); a 3xx becomes an error instead.
    fetchOptions: { redirect: 'manual' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  function context(
    phase: FailureContext['phase'],
    callerSignal: AbortSignal | undefined,
    deadlineSignal: AbortSignal,
    timeoutSeconds: number,
  ): FailureContext {
    return { phase, callerSignal, deadlineSignal, timeoutSeconds, baseUrl: profile.baseUrl, model: profile.model, secrets, now: now() };
  }

  /**
   * A model can echo the key it was called with (prompt injection, a confused model): the deltas go
   * out through a StreamRedactor, so a key split across deltas is caught too, and the answer is
   * redacted before it is returned.
   */
  async function streamChat(request: StreamChatRequest): Promise<ChatOutcome> {
    const text = request.onTextDelta ? new StreamRedactor(secrets, request.onTextDelta) : null;
    const reasoning = request.onReasoningDelta ? new StreamRedactor(secrets, request.onReasoningDelta) : null;
    const outcome = await streamChatUnredacted({
      ...request,
      ...(text ? { onTextDelta: (delta: string) => text.push(delta) } : {}),
      ...(reasoning ? { onReasoningDelta: (delta: string) => reasoning.push(delta) } : {}),
    });
    reasoning?.flush();
    text?.flush();
    return redactChatOutcome(outcome, secrets);
  }

  /**
   * Set once the server refused `stream_options` (older Azure api-versions, some local servers): this
   * provider (one per turn) sends no more of it, and usage is estimated when the stream carries none.
   */
  let sendStreamOptions = true;

  async function streamChatUnredacted(request: StreamChatRequest): Promise<ChatOutcome> {
    const timeoutMs = profile.timeoutSeconds * 1000;
    const startedAt = now();
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
    const callbacks = {
      ...(request.onTextDelta ? { onTextDelta: request.onTextDelta } : {}),
      ...(request.onReasoningDelta ? { onReasoningDelta: request.onReasoningDelta } : {}),
      ...(request.onToolCallDelta ? { onToolCallDelta: request.onToolCallDelta } : {}),
    };
    const failed = (error: ProviderError, partial?: ChatResult): ChatOutcome =>
      partial ? { type: 'failed', error, partial } : { type: 'failed', error };

    for (let attempts = 1; ; attempts++) {
      const assembler = new StreamAssembler(callbacks);
      let phase: FailureContext['phase'] = 'request';
      try {
        const stream = await client.chat.completions.create(
          {
            model: profile.model,
            messages: request.messages,
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
            stream: true,
            ...(sendStreamOptions ? { stream_options: { include_usage: true } } : {}),
          },
          { signal, timeout: Math.max(1, timeoutMs - (now() - startedAt)) + SDK_TIMEOUT_SLACK_MS, maxRetries: 0 },
        );
        phase = 'stream';
        for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) assembler.push(chunk);

        // The SDK ends a stream silently when its signal aborts: tell the two signals apart here.
        if (request.signal?.aborted) return { type: 'aborted', partial: assembler.result(false, attempts) };
        const ctx = context('stream', request.signal, deadline, profile.timeoutSeconds);
        if (deadline.aborted) return failed(timeoutError(ctx), assembler.result(false, attempts));
        if (assembler.chunkCount === 0) return failed(malformedError(ctx, 'no chat completion chunks in the stream'));
        if (assembler.finishReason === null) return failed(streamBrokenError(ctx), assembler.result(false, attempts));
        const offered = (request.tools ?? []).flatMap((tool) => (tool.type === 'function' ? [tool.function.name] : []));
        return { type: 'completed', result: withEstimatedUsage(withTextToolCalls(assembler.result(true, attempts), offered), request) };
      } catch (error) {
        if (error instanceof CallbackError) throw error.cause;
        // Refused before any byte: the same request once more without it, not counted as a failure.
        if (phase === 'request' && sendStreamOptions && rejectedOptionalParameter(error, ['stream_options']) !== null) {
          sendStreamOptions = false;
          continue;
        }
        const classified = classifyFailure(error, context(phase, request.signal, deadline, profile.timeoutSeconds));
        const partial = phase === 'stream' ? assembler.result(false, attempts) : undefined;
        if (classified.type === 'aborted') return { type: 'aborted', partial: partial ?? assembler.result(false, attempts) };

        const wait = retryDelayMs({
          error: classified.error,
          responseStarted: phase === 'stream',
          attempts,
          remainingMs: timeoutMs - (now() - startedAt),
          random,
        });
        if (wait === null) return failed(classified.error, partial);
        await sleep(wait, signal);
        if (request.signal?.aborted) return { type: 'aborted', partial: assembler.result(false, attempts) };
        if (deadline.aborted) return failed(timeoutError(context('request', request.signal, deadline, profile.timeoutSeconds)));
      }
    }
  }

  async function probe(): Promise<ProbeResult> {
    const timeoutSeconds = Math.min(profile.timeoutSeconds, PROBE_TIMEOUT_CAP_SECONDS);
    const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
    const startedAt = now();
    const ask = (limit: 'max_tokens' | 'max_completion_tokens') =>
      client.chat.completions.create(
        {
          model: profile.model,
          messages: [{ role: 'user', content: 'Reply with OK.' }],
          stream: false,
          ...(limit === 'max_tokens' ? { max_tokens: 5 } : { max_completion_tokens: 5 }),
        },
        { signal: deadline, timeout: timeoutSeconds * 1000 + SDK_TIMEOUT_SLACK_MS, maxRetries: 0 },
      );
    const failure = (error: ProviderError): ProbeResult => ({ ok: false, code: error.code, message: error.message, hints: error.hints });
    try {
      let completion: unknown;
      try {
        completion = await ask('max_tokens');
      } catch (error) {
        if (!rejectsMaxTokens(error)) throw error;
        completion = await ask('max_completion_tokens');
      }
      if (!isChatCompletion(completion)) {
        return failure(malformedError(context('stream', undefined, deadline, timeoutSeconds), 'not a chat completion'));
      }
      return { ok: true, latencyMs: now() - startedAt, model: completion.model || profile.model };
    } catch (error) {
      const classified = classifyFailure(error, context('request', undefined, deadline, timeoutSeconds));
      // Nothing but the deadline can abort a probe.
      return failure(classified.type === 'error' ? classified.error : timeoutError(context('request', undefined, deadline, timeoutSeconds)));
    }
  }

  return { streamChat, probe };
}
