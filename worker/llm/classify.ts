// Turns whatever a provider call threw (openai SDK errors, fetch errors, stream failures) into a
// ProviderError with the product's code and redacted, actionable text, or into "aborted".

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai/core/error';
import { ProviderError, type ProviderErrorInit } from './provider-error.ts';
import { redactText } from './redact.ts';
import { noToolsFlavour, noToolsHints } from './provider-quirks.ts';
import { parseRetryAfterMs } from './retry-policy.ts';

export interface FailureContext {
  /** 'request' until the response status arrived; 'stream' once a 2xx response was being read. */
  phase: 'request' | 'stream';
  callerSignal: AbortSignal | undefined;
  /** The whole call's deadline, retries included, and its length. */
  deadlineSignal: AbortSignal;
  deadlineSeconds: number;
  /** The request's silence limit (idle-watch.ts), when it has one, and its length (the profile's timeoutSeconds). */
  idleSignal?: AbortSignal | undefined;
  timeoutSeconds: number;
  baseUrl: string;
  model: string;
  /** Exact secrets to remove from every text (the API key). */
  secrets: readonly string[];
  now: number;
}

export type Classified = { type: 'aborted' } | { type: 'error'; error: ProviderError };

const PROVIDER_TEXT_LIMIT = 300;

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return 'the configured base URL';
  }
}

function make(ctx: FailureContext, init: ProviderErrorInit): ProviderError {
  return new ProviderError({
    ...init,
    message: redactText(init.message, ctx.secrets),
    hints: init.hints.map((hint) => redactText(hint, ctx.secrets)),
  });
}

/** A JSON media type (`application/json`, `…+json`), as a Content-Type header names it. */
function isJsonType(contentType: string | null | undefined): boolean {
  const media = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return media === 'application/json' || media.endsWith('+json');
}

/**
 * The provider's own words, shortened, without markup; redacted later with the whole message.
 * Quoted only from an OpenAI-style error object: `{"error": {"message": "…"}}`, or a top-level
 * `{"message": "…"}` (chat-client.ts reads that as the error itself), in an answer labelled JSON;
 * or an error object a 2xx answer carried (a stream's error event, parsed as data). Anything else
 * (an HTML page, plain text, other JSON) is never quoted, only our own words for its status: a
 * base URL whose name resolves to a private address (a Worker cannot check that) would otherwise
 * make the connection test read out an internal service's answer.
 */
function providerText(error: APIError): string | undefined {
  if (error.status !== undefined && !isJsonType(error.headers?.get('content-type'))) return undefined;
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body !== 'object' || body === null || typeof body.message !== 'string') return undefined;
  const text = body.message
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text || /status code \(no body\)/.test(text)) return undefined;
  return text.length > PROVIDER_TEXT_LIMIT ? `${text.slice(0, PROVIDER_TEXT_LIMIT)}…` : text;
}

/** Whatever the provider said, to tell failures apart (tools refused, a context too long): never quoted (providerText is). */
function anyText(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s+/, '');
}

function said(error: APIError): string {
  const text = providerText(error);
  return text ? ` The provider said: "${text}"` : '';
}

/** The first `code` (ENOTFOUND, ECONNREFUSED, UND_ERR_SOCKET…) along an error's cause chain. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const duration = (seconds: number): string => (seconds < 120 ? `${seconds} seconds` : `${Math.round(seconds / 60)} minutes`);

/**
 * Which limit ran out: `start`, no answer began within the silence limit (timeoutSeconds); `silence`,
 * an answer began, then nothing more came for that long; `total`, the call's deadline passed while
 * the answer was still coming.
 */
export type TimeoutKind = 'start' | 'silence' | 'total';

export function timeoutError(ctx: FailureContext, which: TimeoutKind): ProviderError {
  const raise = 'raise the timeout in the AI settings (how long to wait for the model to start answering, and between parts of its answer)';
  const [message, hints] =
    which === 'start'
      ? [`The AI provider did not start answering within ${duration(ctx.timeoutSeconds)}.`, [`Try again. If it keeps happening, ${raise}, or choose a faster model.`]]
      : which === 'silence'
        ? [
            `The AI provider stopped sending its answer: nothing arrived for ${duration(ctx.timeoutSeconds)}.`,
            [`Try again: the server or the network may have stalled. If the model pauses this long while it works (a local model under load), ${raise}.`],
          ]
        : [
            `The AI provider did not finish answering within ${duration(ctx.deadlineSeconds)}.`,
            [`Try again, or ask for a smaller change: one answer may take at most ${duration(ctx.deadlineSeconds)}, however steadily it streams.`, 'If answers often take this long, choose a faster model.'],
          ];
  return make(ctx, { code: 'AI_PROVIDER_TIMEOUT', kind: 'timeout', message, hints, retryable: true });
}

export function malformedError(ctx: FailureContext, what: string): ProviderError {
  return make(ctx, {
    code: 'AI_PROVIDER_ERROR',
    kind: 'malformed',
    message: `The AI provider answered with something that is not an OpenAI-compatible response (${what}).`,
    hints: [`Check that the base URL (${hostOf(ctx.baseUrl)}) points at the OpenAI-compatible API; it usually ends in /v1.`],
    retryable: false,
  });
}

export function tooLargeError(ctx: FailureContext, limitChars: number): ProviderError {
  return make(ctx, {
    code: 'AI_PROVIDER_ERROR',
    kind: 'too_large',
    message: `The AI provider's answer grew past ${Math.round(limitChars / (1024 * 1024))} million characters, so it was cut off there and not used.`,
    hints: ['Ask for a smaller change, or choose another model: no answer a turn can use is that large.'],
    retryable: false,
  });
}

export function streamBrokenError(ctx: FailureContext, detail = ''): ProviderError {
  return make(ctx, {
    code: 'AI_PROVIDER_ERROR',
    kind: 'stream_broken',
    message: `The AI provider's answer broke off before it was finished.${detail}`,
    hints: ['Try again. If it keeps happening, the provider or the network between us may be unstable.'],
    retryable: true,
  });
}

function fromStatus(error: APIError, status: number, ctx: FailureContext): ProviderError {
  const providerCode = typeof error.code === 'string' ? error.code : undefined;
  const base = { code: 'AI_PROVIDER_ERROR' as const, status, ...(providerCode ? { providerCode } : {}) };
  const host = hostOf(ctx.baseUrl);

  if (status === 401 || status === 403) {
    return make(ctx, {
      ...base,
      kind: 'auth',
      message: `The AI provider refused ${status === 401 ? 'the API key' : 'access'} (HTTP ${status}).${said(error)}`,
      hints: [
        'Check the API key in your AI settings: it may be mistyped, expired or revoked.',
        `Check that the base URL (${host}) and the model (${ctx.model}) match the provider the key belongs to.`,
      ],
      retryable: false,
    });
  }
  if (status === 429) {
    const quota = providerCode === 'insufficient_quota' || error.type === 'insufficient_quota';
    if (quota) {
      return make(ctx, {
        ...base,
        kind: 'quota',
        message: `The AI provider says the account behind this API key has no quota left.${said(error)}`,
        hints: [
          'Add credit or raise the spending limit in your account with the provider, or use another API key.',
          'Retrying will not help until the quota is restored.',
        ],
        retryable: false,
      });
    }
    const retryAfterMs = parseRetryAfterMs(error.headers, ctx.now);
    const waitHint =
      retryAfterMs !== undefined
        ? `Wait about ${Math.max(1, Math.ceil(retryAfterMs / 1000))} seconds, then try again.`
        : 'Wait a moment, then try again.';
    return make(ctx, {
      ...base,
      kind: 'rate_limit',
      message: `The AI provider is limiting how many requests it accepts (HTTP 429).${said(error)}`,
      hints: [waitHint, 'If this keeps happening, check the rate limits of your plan with the provider.'],
      retryable: true,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  if (status >= 500) {
    const retryAfterMs = parseRetryAfterMs(error.headers, ctx.now);
    return make(ctx, {
      ...base,
      kind: 'server',
      message: `The AI provider had a problem on its side (HTTP ${status}).${said(error)}`,
      hints: ['This is usually temporary. Try again in a moment.'],
      retryable: true,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  // Before 404: OpenRouter answers 404 when no endpoint of the model supports tool use.
  const noTools = status >= 400 && status < 500 ? noToolsFlavour(anyText(error)) : null;
  if (noTools !== null) {
    return make(ctx, {
      ...base,
      code: 'AI_MODEL_NO_TOOLS',
      kind: 'no_tools',
      message: `The model "${ctx.model}" cannot call tools here (HTTP ${status}), and the AI workbench needs tool calling to read and stage changes.${said(error)}`,
      hints: noToolsHints(noTools),
      retryable: false,
    });
  }
  if (status >= 300 && status < 400) {
    return make(ctx, {
      ...base,
      kind: 'redirect',
      message: `The AI provider answered with a redirect (HTTP ${status}). Redirects are not followed, because they could lead to a private address.`,
      hints: [`Use the final address of the API as the base URL instead of ${host}.`],
      retryable: false,
    });
  }
  if (status === 404) {
    return make(ctx, {
      ...base,
      kind: 'not_found',
      message: `The AI provider did not find the model "${ctx.model}" or the API address (HTTP 404).${said(error)}`,
      hints: [
        'Check the model name in your AI settings.',
        `Check the base URL (${host}); OpenAI-compatible APIs usually end in /v1.`,
      ],
      retryable: false,
    });
  }
  const tooLong = providerCode === 'context_length_exceeded' || /context length|maximum context|too many tokens/i.test(anyText(error));
  return make(ctx, {
    ...base,
    kind: 'bad_request',
    message: `The AI provider rejected the request (HTTP ${status}).${said(error)}`,
    hints: tooLong
      ? ['The conversation is too long for this model. Start a new session or choose a model with a larger context window.']
      : ['Check that the model supports chat completions with tool calling.', `Check that the base URL (${host}) and the model (${ctx.model}) match.`],
    retryable: false,
  });
}

function unreachable(error: unknown, ctx: FailureContext): ProviderError {
  const code = networkCode(error);
  const why =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? ' (its host name could not be resolved)'
      : code === 'ECONNREFUSED'
        ? ' (the connection was refused)'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE'
          ? ' (the connection was closed before it answered)'
          : code === 'CERT_HAS_EXPIRED' || (code?.startsWith('ERR_TLS') ?? false) || (code?.includes('CERT') ?? false)
            ? ' (its TLS certificate was not accepted)'
            : '';
  return make(ctx, {
    code: 'AI_PROVIDER_UNREACHABLE',
    kind: 'unreachable',
    message: `The AI provider at ${hostOf(ctx.baseUrl)} could not be reached${why}.`,
    hints: [
      'Check the base URL in your AI settings: scheme (https), host and port.',
      'Check that the provider is up and reachable from the internet.',
    ],
    retryable: true,
  });
}

export function classifyFailure(error: unknown, ctx: FailureContext): Classified {
  // Our own signals decide first: the SDK reports them as a user abort, or ends a stream silently.
  if (ctx.callerSignal?.aborted) return { type: 'aborted' };
  if (ctx.idleSignal?.aborted) return { type: 'error', error: timeoutError(ctx, ctx.phase === 'request' ? 'start' : 'silence') };
  if (ctx.deadlineSignal.aborted) return { type: 'error', error: timeoutError(ctx, 'total') };
  // The runtime's own timeout (a connection that never opened) is a wait our limits did not end.
  if (error instanceof APIConnectionTimeoutError) return { type: 'error', error: timeoutError(ctx, ctx.phase === 'request' ? 'start' : 'silence') };
  if (error instanceof APIUserAbortError) return { type: 'aborted' };

  if (error instanceof APIError && typeof error.status === 'number') {
    return { type: 'error', error: fromStatus(error, error.status, ctx) };
  }
  if (error instanceof APIConnectionError) {
    return { type: 'error', error: ctx.phase === 'request' ? unreachable(error, ctx) : streamBrokenError(ctx) };
  }
  if (error instanceof APIError) {
    // An error object inside a 200 stream (no status): the provider failed mid-answer.
    return { type: 'error', error: streamBrokenError(ctx, said(error)) };
  }
  if (error instanceof SyntaxError) {
    return { type: 'error', error: malformedError(ctx, 'its data is not valid JSON') };
  }
  if (error instanceof OpenAIError) {
    return { type: 'error', error: malformedError(ctx, 'the SDK could not read it') };
  }
  if (ctx.phase === 'stream') return { type: 'error', error: streamBrokenError(ctx) };
  return { type: 'error', error: unreachable(error, ctx) };
}
