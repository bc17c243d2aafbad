// Renders a scripted reply in the OpenAI chat completions wire format: stream chunks or one JSON body.
// Pure functions; server.ts writes what they return.

import type { FinishReason, ScriptedToolCall, StreamEnding, TextReply, ToolCallsReply } from './types.ts';

/** A reply reduced to what goes on the wire. */
export interface WireReply extends StreamEnding {
  content: string | null;
  reasoningContent: string | null;
  refusal?: string;
  /** A null id is left out of the wire format. */
  toolCalls: Array<{ id: string | null; name: string; argumentsText: string | null }>;
  finishReason: FinishReason;
  /** Fragment size of streamed text and arguments, when the reply sets one. */
  fragmentChars?: number;
  /** Fragment size of streamed function names, when the reply sets one (else each name is sent whole). */
  nameFragmentChars?: number;
}

export interface WireContext {
  id: string;
  model: string;
  created: number;
  promptTokens: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Roughly four characters per token, the rule of thumb OpenAI documents for English text. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

export function estimatePromptTokens(body: Record<string, unknown>): number {
  return Math.max(1, estimateTokens(JSON.stringify(body['messages'] ?? []) + JSON.stringify(body['tools'] ?? [])));
}

/**
 * Splits text into fragments the way a model emits tokens: a few characters each, at least two
 * fragments when the text allows it, and never more than `maxFragments` so huge payloads stay cheap.
 * `fixedChars` asks for fragments of exactly that size instead, however many there are.
 */
export function splitFragments(text: string, maxFragments = 200, fixedChars?: number): string[] {
  if (text.length <= 1) return [text];
  const size =
    fixedChars !== undefined ? fixedChars : Math.max(Math.min(8, Math.ceil(text.length / 2)), Math.ceil(text.length / maxFragments));
  const fragments: string[] = [];
  for (let at = 0; at < text.length; at += size) fragments.push(text.slice(at, at + size));
  return fragments;
}

function argumentsText(call: ScriptedToolCall): string | null {
  if (call.arguments === null) return null;
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export function toWireReply(reply: TextReply | ToolCallsReply, callIndex: number): WireReply {
  const shape = {
    ...(reply.fragmentChars !== undefined ? { fragmentChars: reply.fragmentChars } : {}),
    ...(reply.finishReasonOnWire !== undefined ? { finishReasonOnWire: reply.finishReasonOnWire } : {}),
    ...(reply.omitDone !== undefined ? { omitDone: reply.omitDone } : {}),
  };
  if ('toolCalls' in reply) {
    const cut = reply.truncateArgumentsAt;
    return {
      content: reply.content ?? null,
      reasoningContent: reply.reasoningContent ?? null,
      toolCalls: reply.toolCalls.map((call, i) => {
        const text = argumentsText(call);
        return {
          id: reply.omitIds === true ? null : (call.id ?? `call_${callIndex}_${i}`),
          name: call.name,
          argumentsText: text !== null && cut !== undefined ? text.slice(0, cut) : text,
        };
      }),
      finishReason: reply.finishReason ?? (cut !== undefined ? 'length' : 'tool_calls'),
      ...shape,
      ...(reply.nameFragmentChars !== undefined ? { nameFragmentChars: reply.nameFragmentChars } : {}),
    };
  }
  return {
    content: reply.content,
    reasoningContent: reply.reasoningContent ?? null,
    ...(reply.refusal !== undefined ? { refusal: reply.refusal } : {}),
    toolCalls: [],
    finishReason: reply.finishReason ?? 'stop',
    ...shape,
  };
}

export function usageOf(reply: WireReply, promptTokens: number): Usage {
  const produced =
    (reply.content ?? '') +
    (reply.reasoningContent ?? '') +
    reply.toolCalls.map((c) => c.name + (c.argumentsText ?? '')).join('');
  const completion = estimateTokens(produced);
  return { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
}

/** The non-streamed `chat.completion` body. */
export function completionBody(reply: WireReply, ctx: WireContext): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: reply.refusal ?? null };
  if (reply.reasoningContent !== null) message['reasoning_content'] = reply.reasoningContent;
  if (reply.toolCalls.length > 0) {
    message['tool_calls'] = reply.toolCalls.map((c) => ({
      ...(c.id === null ? {} : { id: c.id }),
      type: 'function',
      function: { name: c.name, arguments: c.argumentsText },
    }));
  }
  return {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.model,
    system_fingerprint: 'fp_scripted',
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: usageOf(reply, ctx.promptTokens),
  };
}

type Delta = Record<string, unknown>;

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order: role, reasoning, text, tool-call
 * deltas, the finish chunk and (when asked with stream_options.include_usage) a usage-only chunk.
 * Several tool calls are interleaved: each call's first delta carries index, id, type, name and empty
 * arguments; later deltas carry argument fragments under the same index.
 */
export function streamChunks(reply: WireReply, ctx: WireContext, includeUsage: boolean): Record<string, unknown>[] {
  const chunk = (delta: Delta, finishReason: FinishReason | '' | null = null): Record<string, unknown> => ({
    id: ctx.id,
    object: 'chat.completion.chunk',
    created: ctx.created,
    model: ctx.model,
    system_fingerprint: 'fp_scripted',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });

  const chunks = [chunk({ role: 'assistant', content: reply.reasoningContent !== null ? null : '' })];
  if (reply.reasoningContent !== null) {
    for (const part of splitFragments(reply.reasoningContent, 200, reply.fragmentChars)) chunks.push(chunk({ content: null, reasoning_content: part }));
  }
  if (reply.refusal !== undefined) for (const part of splitFragments(reply.refusal, 200, reply.fragmentChars)) chunks.push(chunk({ refusal: part }));
  if (reply.content !== null && reply.content.length > 0) {
    for (const part of splitFragments(reply.content, 200, reply.fragmentChars)) chunks.push(chunk({ content: part }));
  }

  const queues = reply.toolCalls.map((call, index) => {
    const [name = '', ...moreName] = reply.nameFragmentChars === undefined ? [call.name] : splitFragments(call.name, 200, reply.nameFragmentChars);
    const header = {
      index,
      ...(call.id === null ? {} : { id: call.id }),
      type: 'function',
      function: { name, arguments: call.argumentsText === null ? null : '' },
    };
    const fragments = call.argumentsText === null || call.argumentsText === '' ? [] : splitFragments(call.argumentsText, 200, reply.fragmentChars);
    return [header, ...moreName.map((part) => ({ index, function: { name: part } })), ...fragments.map((part) => ({ index, function: { arguments: part } }))];
  });
  const longest = Math.max(0, ...queues.map((q) => q.length));
  for (let step = 0; step < longest; step++) {
    for (const queue of queues) {
      const toolCall = queue[step];
      if (toolCall !== undefined) chunks.push(chunk({ tool_calls: [toolCall] }));
    }
  }

  chunks.push(chunk({}, reply.finishReasonOnWire === 'null' ? null : reply.finishReasonOnWire === 'empty' ? '' : reply.finishReason));
  if (includeUsage) {
    chunks.push({
      id: ctx.id,
      object: 'chat.completion.chunk',
      created: ctx.created,
      model: ctx.model,
      system_fingerprint: 'fp_scripted',
      choices: [],
      usage: usageOf(reply, ctx.promptTokens),
    });
  }
  return chunks;
}

export function sseEvent(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';
