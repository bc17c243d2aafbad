// Removes every echo of the profile's key from a model's answer (text, reasoning, tool arguments,
// provider extras) before the answer leaves the provider adapter: nothing downstream — events,
// stored history, summaries, audit rows, tool runs — ever holds the key the model repeated.

import { redactKnownSecrets } from './redact.ts';
import { MAX_JSON_DEPTH, jsonNestsDeeper } from '../../shared/json-depth.ts';
import type { AssistantMessage, ChatResult } from '../../shared/llm/types.ts';
import type { ChatOutcome } from './chat-outcome.ts';

/** A provider's value nested deeper than MAX_JSON_DEPTH is not walked (it would overflow the stack): it becomes null. */
function deep(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof value === 'string') return redactKnownSecrets(value, secrets);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) return null;
  if (Array.isArray(value)) return value.map((item) => deep(item, secrets, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, deep(child, secrets, depth + 1)]));
}

/**
 * Tool arguments stay valid JSON: the parsed values are redacted (a key escaped in JSON, e.g. spaced
 * with `\n`, is found there) and re-encoded only when something was removed.
 */
export function redactArguments(text: string, secrets: readonly string[]): string {
  const direct = redactKnownSecrets(text, secrets);
  // Too deep to walk: the loop refuses such arguments unread (tool-calls.ts), so the text redaction is enough.
  if (jsonNestsDeeper(text)) return direct;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return direct;
  }
  const redacted = JSON.stringify(deep(parsed, secrets));
  if (redacted !== JSON.stringify(parsed)) return redacted;
  return direct;
}

export function redactChatResult(result: ChatResult, secrets: readonly string[]): ChatResult {
  if (secrets.length === 0) return result;
  const message = deep(result.assistantMessage, secrets) as AssistantMessage;
  if (result.assistantMessage.tool_calls) {
    message.tool_calls = result.assistantMessage.tool_calls.map((call) =>
      call.type === 'function' ? { ...call, function: { ...call.function, arguments: redactArguments(call.function.arguments, secrets) } } : call,
    );
  }
  return {
    ...result,
    content: redactKnownSecrets(result.content, secrets),
    ...(result.reasoningContent !== undefined ? { reasoningContent: redactKnownSecrets(result.reasoningContent, secrets) } : {}),
    toolCalls: result.toolCalls.map((call) => ({ ...call, argumentsText: redactArguments(call.argumentsText, secrets) })),
    providerExtras: deep(result.providerExtras, secrets) as Record<string, unknown>,
    assistantMessage: message,
  };
}

export function redactChatOutcome(outcome: ChatOutcome, secrets: readonly string[]): ChatOutcome {
  if (secrets.length === 0) return outcome;
  switch (outcome.type) {
    case 'completed':
      return { type: 'completed', result: redactChatResult(outcome.result, secrets) };
    case 'aborted':
      return { type: 'aborted', partial: redactChatResult(outcome.partial, secrets) };
    case 'failed':
      return outcome.partial ? { ...outcome, partial: redactChatResult(outcome.partial, secrets) } : outcome;
  }
}
