import { describe, expect, it } from 'vitest';
import { completionBody, splitFragments, streamChunks, toWireReply, usageOf, type WireContext } from './wire.ts';

const ctx: WireContext = { id: 'chatcmpl-1', model: 'm', created: 1, promptTokens: 10 };

type Chunk = { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>; usage?: unknown };

describe('splitFragments', () => {
  it('splits short text into at least two fragments that join back', () => {
    expect(splitFragments('hello')).toEqual(['hel', 'lo']);
    expect(splitFragments('a')).toEqual(['a']);
    expect(splitFragments('').join('')).toBe('');
  });

  it('caps the number of fragments for huge payloads', () => {
    const text = 'x'.repeat(100_000);
    const parts = splitFragments(text);
    expect(parts.length).toBeLessThanOrEqual(200);
    expect(parts.join('')).toBe(text);
  });

  it('splits into fragments of exactly fragmentChars characters when a reply asks for it', () => {
    expect(splitFragments('abcdefg', 200, 2)).toEqual(['ab', 'cd', 'ef', 'g']);
    const text = toWireReply({ content: 'x'.repeat(500), fragmentChars: 1 }, 0);
    const deltas = (streamChunks(text, ctx, false) as Chunk[]).map((c) => c.choices[0]?.delta['content']).filter((c) => typeof c === 'string' && c);
    expect(deltas).toHaveLength(500);
    const calls = toWireReply({ toolCalls: [{ name: 'a', arguments: '{"k":"abcdef"}' }], fragmentChars: 3 }, 0);
    const args = (streamChunks(calls, ctx, false) as Chunk[]).flatMap((c) => (c.choices[0]?.delta['tool_calls'] as Array<{ function: { arguments: string } }> | undefined) ?? []);
    expect(args.map((a) => a.function.arguments).filter(Boolean)).toEqual(['{"k', '":"', 'abc', 'def', '"}']);
  });
});

describe('streamChunks', () => {
  it('interleaves parallel tool calls: a header with id and name first, then argument fragments by index', () => {
    const reply = toWireReply(
      {
        toolCalls: [
          { name: 'a', arguments: { x: 'first call arguments' } },
          { name: 'b', arguments: '{"y":2}' },
        ],
      },
      7,
    );
    const chunks = streamChunks(reply, ctx, false) as unknown as Chunk[];
    const toolDeltas = chunks.flatMap((c) => (c.choices[0]?.delta['tool_calls'] as Array<Record<string, unknown>>) ?? []);
    expect(toolDeltas[0]).toEqual({ index: 0, id: 'call_7_0', type: 'function', function: { name: 'a', arguments: '' } });
    expect(toolDeltas[1]).toEqual({ index: 1, id: 'call_7_1', type: 'function', function: { name: 'b', arguments: '' } });
    expect(toolDeltas.map((d) => d['index'])).toContain(0);
    // Fragments of call 0 and call 1 alternate before call 0 finishes.
    const order = toolDeltas.slice(2, 6).map((d) => d['index']);
    expect(order).toEqual([0, 1, 0, 1]);
    const joined = (i: number) =>
      toolDeltas
        .filter((d) => d['index'] === i)
        .map((d) => (d['function'] as { arguments: string }).arguments)
        .join('');
    expect(JSON.parse(joined(0))).toEqual({ x: 'first call arguments' });
    expect(joined(1)).toBe('{"y":2}');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('streams a function name in pieces when nameFragmentChars asks for it, as Gemini does', () => {
    const reply = toWireReply({ toolCalls: [{ name: 'builder_step_read', arguments: '{}' }], nameFragmentChars: 8 }, 0);
    const chunks = streamChunks(reply, ctx, false) as unknown as Chunk[];
    const toolDeltas = chunks.flatMap((c) => (c.choices[0]?.delta['tool_calls'] as Array<Record<string, unknown>>) ?? []);
    expect(toolDeltas.map((d) => (d['function'] as { name?: string }).name)).toEqual(['builder_', 'step_rea', 'd', undefined, undefined]);
    expect(toolDeltas[0]).toMatchObject({ id: 'call_0_0', type: 'function' });
  });

  it('adds usage: null to every chunk and a final usage-only chunk when usage is asked for', () => {
    const reply = toWireReply({ content: 'Hello there, world' }, 0);
    const chunks = streamChunks(reply, ctx, true) as unknown as Chunk[];
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  });

  it('streams reasoning_content before the content, as DeepSeek does', () => {
    const reply = toWireReply({ content: 'Answer', reasoningContent: 'Thinking hard' }, 0);
    const deltas = (streamChunks(reply, ctx, false) as unknown as Chunk[]).map((c) => c.choices[0]?.delta ?? {});
    const firstContent = deltas.findIndex((d) => typeof d['content'] === 'string' && d['content'] !== '');
    const lastReasoning = deltas.findLastIndex((d) => typeof d['reasoning_content'] === 'string');
    expect(lastReasoning).toBeGreaterThan(0);
    expect(firstContent).toBeGreaterThan(lastReasoning);
  });
});

describe('toWireReply', () => {
  it('truncates arguments and reports finish_reason length', () => {
    const reply = toWireReply({ toolCalls: [{ name: 'a', arguments: { long: 'value' } }], truncateArgumentsAt: 5 }, 0);
    expect(reply.toolCalls[0]?.argumentsText).toBe('{"lon');
    expect(reply.finishReason).toBe('length');
  });

  it('keeps null arguments null in the non-streamed body', () => {
    const body = completionBody(toWireReply({ toolCalls: [{ name: 'a', arguments: null }] }, 0), ctx) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: unknown } }> } }>;
    };
    expect(body.choices[0]?.message.tool_calls[0]?.function.arguments).toBeNull();
  });

  it('counts about four characters per completion token', () => {
    expect(usageOf(toWireReply({ content: 'x'.repeat(40) }, 0), 3)).toEqual({
      prompt_tokens: 3,
      completion_tokens: 10,
      total_tokens: 13,
    });
  });
});
