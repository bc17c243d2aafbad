/**
 * The bare AI tool loop the turn rows compare the product's loop with, runtime-neutral so one copy
 * runs in Node (turn-peer.ts, behind a Node relay) and in workerd (floor/worker.ts's loop floor,
 * beside the product): stream a completion with the `openai` SDK, assemble its tool calls, answer
 * each with a fixed tool result, append the `role=tool` messages, repeat until the model answers
 * without tools. Each step is one event, in the product's order and shapes (copied from the
 * product's own frames by the caller), so every side sends the same frames. No storage, no checks,
 * no retries.
 */
import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/** One event as a frame carries it (the product's envelope: seq, type, at, actor, turnId, payload). */
export type LoopEvent = Record<string, unknown> & { payload: Record<string, unknown> };

export interface BareLoopScript {
  model: string;
  /** The product's first request of a turn: its messages and tools, sent as they are. */
  prompt: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  /** What the tool answers (the product's tool result, parsed); stringified on every call. */
  toolResult: unknown;
  /** One product event per type, the shape the loop copies. */
  templates: Readonly<Record<string, LoopEvent>>;
}

/** Sends one event to every subscriber; its `seq` is the publisher's to set. */
export type Publish = (event: LoopEvent) => void;

/** The product's event of `type` with this turn and payload (a type it never sent goes out bare). */
export function eventOf(templates: BareLoopScript['templates'], type: string, turnId: string, payload: Record<string, unknown>): LoopEvent {
  const template = templates[type] ?? { seq: 0, type, at: '', actor: { kind: 'system' }, turnId, payload: {} };
  return { ...template, at: new Date().toISOString(), turnId, payload: { ...template.payload, ...payload } };
}

interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

/** One streamed completion, assembled as the product's StreamAssembler does, minus its checks. */
async function complete(client: OpenAI, script: BareLoopScript, messages: ChatCompletionMessageParam[]) {
  const stream = await client.chat.completions.create({
    model: script.model,
    messages,
    tools: script.tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  let finishReason: string | null = null;
  const calls: AssembledCall[] = [];
  for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) content += choice.delta.content;
    for (const delta of choice.delta.tool_calls ?? []) {
      const call = (calls[delta.index] ??= { id: '', name: '', arguments: '' });
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return { content, finishReason, calls };
}

/** Runs one turn to its end, publishing its events; a failure is the caller's to report. */
export async function bareLoop(client: OpenAI, script: BareLoopScript, turnId: string, publish: Publish): Promise<void> {
  const emit = (type: string, payload: Record<string, unknown>) => publish(eventOf(script.templates, type, turnId, payload));
  emit('turn.context', {});
  const messages: ChatCompletionMessageParam[] = [...script.prompt];
  for (let iteration = 1; ; iteration++) {
    emit('llm.requested', { iteration, messages: messages.length, tools: script.tools.length });
    const startedAt = Date.now();
    const { content, finishReason, calls } = await complete(client, script, messages);
    emit('llm.completed', { iteration, finishReason, toolCalls: calls.length, durationMs: Date.now() - startedAt });
    if (calls.length === 0) {
      if (content) emit('assistant.delta', { iteration, text: content });
      const answer = JSON.parse(content) as { responseType: string; assistantSummary: string };
      emit('turn.finished', { responseType: answer.responseType, summary: answer.assistantSummary, iterations: iteration });
      return;
    }
    messages.push({
      role: 'assistant',
      content: content || null,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    for (const call of calls) {
      emit('tool.started', { iteration, toolCallId: call.id, name: call.name, summary: call.name });
      const toolStarted = Date.now();
      JSON.parse(call.arguments);
      const result = JSON.stringify(script.toolResult);
      emit('tool.finished', { iteration, toolCallId: call.id, name: call.name, ok: true, durationMs: Date.now() - toolStarted, code: null });
      messages.push({ role: 'tool', tool_call_id: call.id, content: result });
    }
  }
}
