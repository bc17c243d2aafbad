/**
 * The peer of bench/turn.ts: a bare AI tool loop in Node behind the smallest relay that does the
 * product's job, session-peer.ts's event relay on a free loopback port. `POST /messages`
 * appends a `turn.accepted` event to an in-memory log and sends it to every subscribed socket,
 * answers 202, then runs the loop with the `openai` SDK: stream the completion, assemble tool calls,
 * run a trivial in-process tool, append `role=tool` messages, repeat until the model answers
 * without tools. Each step is one event frame, in the product's order and shapes (copied from the
 * product's own frames), so both sides send the same frames. No storage, no checks, no retries.
 */
import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { json, startEventRelay } from './session-peer.ts';
import type { EventRelay, EventTemplate, PeerServer } from './session-peer.ts';

export interface TurnPeerOptions {
  /** The scripted server's base URL (ending in /v1), the model (a script) and a key. */
  baseUrl: string;
  model: string;
  apiKey: string;
  /** The product's first request of a turn: its messages and tools, sent as they are. */
  prompt: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  /** What the tool answers (the product's tool result, parsed); stringified on every call. */
  toolResult: unknown;
  /** One product event per type, the shape the peer copies. */
  templates: Readonly<Record<string, EventTemplate>>;
}

interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

export async function startTurnPeer(options: TurnPeerOptions): Promise<PeerServer> {
  const client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0, logLevel: 'off' });
  let running = false;
  let turns = 0;

  function emit(type: string, turnId: string, payload: Record<string, unknown>): EventTemplate {
    // A type the product never sent in the captured turn (turn.failed) goes out bare.
    const template = options.templates[type] ?? { seq: 0, type, at: '', actor: { kind: 'system' }, turnId, payload: {} };
    const event: EventTemplate = { ...template, seq: relay.log.length + 1, at: new Date().toISOString(), turnId, payload: { ...template.payload, ...payload } };
    relay.publish(event);
    return event;
  }

  /** One streamed completion, assembled as the product's StreamAssembler does, minus its checks. */
  async function complete(messages: ChatCompletionMessageParam[]) {
    const stream = await client.chat.completions.create({
      model: options.model,
      messages,
      tools: options.tools,
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

  async function loop(turnId: string): Promise<void> {
    emit('turn.context', turnId, {});
    const messages: ChatCompletionMessageParam[] = [...options.prompt];
    for (let iteration = 1; ; iteration++) {
      emit('llm.requested', turnId, { iteration, messages: messages.length, tools: options.tools.length });
      const startedAt = Date.now();
      const { content, finishReason, calls } = await complete(messages);
      emit('llm.completed', turnId, { iteration, finishReason, toolCalls: calls.length, durationMs: Date.now() - startedAt });
      if (calls.length === 0) {
        if (content) emit('assistant.delta', turnId, { iteration, text: content });
        const answer = JSON.parse(content) as { responseType: string; assistantSummary: string };
        emit('turn.finished', turnId, { responseType: answer.responseType, summary: answer.assistantSummary, iterations: iteration });
        return;
      }
      messages.push({
        role: 'assistant',
        content: content || null,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of calls) {
        emit('tool.started', turnId, { iteration, toolCallId: call.id, name: call.name, summary: call.name });
        const toolStarted = Date.now();
        JSON.parse(call.arguments);
        const result = JSON.stringify(options.toolResult);
        emit('tool.finished', turnId, { iteration, toolCallId: call.id, name: call.name, ok: true, durationMs: Date.now() - toolStarted, code: null });
        messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
    }
  }

  const relay: EventRelay = await startEventRelay<{ content?: unknown }>('/messages', (input, res) => {
    if (typeof input.content !== 'string') return json(res, 400, { data: null, error: { code: 'VALIDATION_FAILED', message: 'content: a string' } });
    if (running) return json(res, 409, { data: null, error: { code: 'AI_TURN_IN_PROGRESS', message: 'A turn is running.' } });
    running = true;
    turns += 1;
    const turnId = `turn_peer_${String(turns).padStart(20, '0')}`;
    const accepted = emit('turn.accepted', turnId, { content: input.content, suggestOnly: false });
    json(res, 202, { data: { turnId, seq: accepted.seq, status: 'running' }, error: null });
    loop(turnId)
      .catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        emit('turn.failed', turnId, { code: 'PEER_FAILED', message, hints: [] });
      })
      .finally(() => (running = false));
  });
  return relay;
}
