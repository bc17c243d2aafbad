import OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { demo, toolLoop } from './scenarios.ts';
import { startScriptedOpenAI, type ScriptedOpenAI } from './server.ts';

const server: ScriptedOpenAI = await startScriptedOpenAI();
const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-test-server-key', maxRetries: 0 });

afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'builder_context_get', parameters: { type: 'object', properties: {} } } },
  {
    type: 'function',
    function: {
      name: 'builder_step_read',
      parameters: { type: 'object', properties: { workflowId: { type: 'string' }, nodeId: { type: 'string' } } },
    },
  },
];

interface Assembled {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | null;
  usage: ChatCompletionChunk['usage'];
  chunkCount: number;
}

/** Assembles a streamed answer the way a client must: text appended, tool calls merged by index. */
async function assemble(stream: AsyncIterable<ChatCompletionChunk>): Promise<Assembled> {
  const out: Assembled = { content: '', reasoning: '', toolCalls: [], finishReason: null, usage: null, chunkCount: 0 };
  for await (const chunk of stream) {
    out.chunkCount += 1;
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    out.content += choice.delta.content ?? '';
    out.reasoning += (choice.delta as { reasoning_content?: string }).reasoning_content ?? '';
    for (const delta of choice.delta.tool_calls ?? []) {
      const call = (out.toolCalls[delta.index] ??= { id: '', name: '', arguments: '' });
      call.id ||= delta.id ?? '';
      call.name ||= delta.function?.name ?? '';
      call.arguments += delta.function?.arguments ?? '';
    }
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
  }
  return out;
}

type ChatMessage = { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string };

const hello: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hello, scripted model' }];

describe('chat completions', () => {
  it('answers non-streamed with a chat.completion body and usage', async () => {
    const completion = await client.chat.completions.create({ model: 'any', messages: hello });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toContain('Hello, scripted model');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0));
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('streams text over several chunks, ends with [DONE] and a usage chunk when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'any',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const result = await assemble(stream);
    expect(result.content).toBe('You said: "Hello, scripted model". This is the scripted echo model.');
    expect(result.chunkCount).toBeGreaterThan(4);
    expect(result.finishReason).toBe('stop');
    expect(result.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('omits usage when the client does not ask for it', async () => {
    const result = await assemble(await client.chat.completions.create({ model: 'any', messages: hello, stream: true }));
    expect(result.usage).toBeNull();
  });

  it('streams parallel tool calls that assemble into complete JSON arguments', async () => {
    server.setScenario({
      content: 'Reading both.',
      toolCalls: [
        { name: 'builder_context_get', arguments: {} },
        { name: 'builder_step_read', arguments: { workflowId: 'wf-1', nodeId: 'step-01' } },
      ],
    });
    const result = await assemble(await client.chat.completions.create({ model: 'any', messages: hello, tools, stream: true }));
    expect(result.finishReason).toBe('tool_calls');
    expect(result.content).toBe('Reading both.');
    expect(result.toolCalls.map((c) => c.name)).toEqual(['builder_context_get', 'builder_step_read']);
    expect(result.toolCalls.every((c) => c.id.startsWith('call_'))).toBe(true);
    expect(JSON.parse(result.toolCalls[1]?.arguments ?? '')).toEqual({ workflowId: 'wf-1', nodeId: 'step-01' });
  });

  it('returns tool calls in a non-streamed message', async () => {
    server.setScenario({ toolCalls: [{ name: 'builder_step_read', arguments: { nodeId: 'n1' }, id: 'call_fixed' }] });
    const completion = await client.chat.completions.create({ model: 'any', messages: hello, tools });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call).toEqual({ id: 'call_fixed', type: 'function', function: { name: 'builder_step_read', arguments: '{"nodeId":"n1"}' } });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('passes reasoning_content as DeepSeek does, streamed and not', async () => {
    server.setScenario({ content: 'Done.', reasoningContent: 'First I think, then I answer.' });
    const streamed = await assemble(await client.chat.completions.create({ model: 'any', messages: hello, stream: true }));
    expect(streamed.reasoning).toBe('First I think, then I answer.');
    expect(streamed.content).toBe('Done.');
    const plain = await client.chat.completions.create({ model: 'any', messages: hello });
    expect((plain.choices[0]?.message as { reasoning_content?: string }).reasoning_content).toBe('First I think, then I answer.');
  });
});

describe('scenarios', () => {
  it('chooses the scenario by model name', async () => {
    server.setScenario({ content: 'default scenario' });
    const echoed = await client.chat.completions.create({ model: 'scripted-echo', messages: hello });
    expect(echoed.choices[0]?.message.content).toContain('scripted echo model');
    const other = await client.chat.completions.create({ model: 'gpt-test', messages: hello });
    expect(other.choices[0]?.message.content).toBe('default scenario');
  });

  it('registers a scenario for one model with setScenario', async () => {
    server.setScenario({ content: 'from the custom model' }, { model: 'custom-model' });
    const completion = await client.chat.completions.create({ model: 'custom-model', messages: hello });
    expect(completion.choices[0]?.message.content).toBe('from the custom model');
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(['scripted-demo', 'scripted-echo', 'custom-model']));
  });

  it('gives each scenario the request, the offered tools and a call index', async () => {
    const seen: Array<{ callIndex: number; tools: string[]; model: string }> = [];
    server.setScenario((request) => {
      seen.push({ callIndex: request.callIndex, tools: request.tools.map((t) => t.name), model: request.model });
      return { content: 'ok' };
    });
    await client.chat.completions.create({ model: 'm1', messages: hello, tools });
    await client.chat.completions.create({ model: 'm1', messages: hello });
    expect(seen).toEqual([
      { callIndex: 0, tools: ['builder_context_get', 'builder_step_read'], model: 'm1' },
      { callIndex: 1, tools: [], model: 'm1' },
    ]);
  });

  it('drives a multi-step tool loop from the number of assistant turns', async () => {
    server.setScenario(
      toolLoop([
        { toolCalls: [{ name: 'builder_context_get', arguments: {} }] },
        { toolCalls: [{ name: 'builder_step_read', arguments: { nodeId: 'n1' } }] },
        { content: 'All read.' },
      ]),
    );
    const messages: ChatCompletionMessageParam[] = [...hello];
    const names: string[] = [];
    for (let turn = 0; turn < 5; turn++) {
      const result = await assemble(await client.chat.completions.create({ model: 'm', messages, tools, stream: true }));
      if (result.toolCalls.length === 0) {
        expect(result.content).toBe('All read.');
        break;
      }
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of result.toolCalls) {
        names.push(call.name);
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: true }) });
      }
    }
    expect(names).toEqual(['builder_context_get', 'builder_step_read']);
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('runs the demo over the wire: context, the target with ids from the context, stage, validate, then a summary', async () => {
    server.setScenario(demo);
    const withChanges: ChatCompletionTool[] = [
      ...tools,
      ...['builder_change_stage', 'builder_change_validate', 'builder_change_discard'].map((name) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties: {} } } })),
    ];
    const messages: ChatMessage[] = [{ role: 'user', content: 'Improve step one' }];
    const ok = (data: unknown) => ({ ok: true, data, error: null, meta: {} });
    const results: Record<string, unknown> = {
      builder_context_get: ok({ session_meta: { targetType: 'step', mode: 'optimize', workflowId: 'wf-main', targetId: 'step-01' }, revision_info: { stagedKeys: [] } }),
      builder_step_read: ok({ markdown: '---\nnodeId: "step-01"\n---\n\n# Select the story\n\n## Goal\n\nPick one.\n\n## Instructions\n\nRead the list. Pick one.\n' }),
      builder_change_stage: ok({ version: 1, files: [{ key: 'step:wf-main/step-01', action: 'M' }] }),
      builder_change_validate: ok({ valid: true, errors: [], warnings: [] }),
    };
    const calls: Array<{ name: string; arguments: string }> = [];
    let finalText = '';
    for (let turn = 0; turn < 6 && !finalText; turn++) {
      const result = await assemble(
        await client.chat.completions.create({ model: 'scripted-demo', messages: messages as ChatCompletionMessageParam[], tools: withChanges, stream: true }),
      );
      if (result.toolCalls.length === 0) {
        finalText = result.content;
        break;
      }
      messages.push({ role: 'assistant', content: result.content || null, tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
      for (const call of result.toolCalls) {
        calls.push({ name: call.name, arguments: call.arguments });
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(results[call.name]) });
      }
    }
    expect(calls.map((c) => c.name)).toEqual(['builder_context_get', 'builder_step_read', 'builder_change_stage', 'builder_change_validate']);
    expect(calls[1]!.arguments).toBe('{"workflowId":"wf-main","nodeId":"step-01"}');
    expect(JSON.parse(calls[2]!.arguments).changeSet.operations[0].payload.stepMarkdown).toContain('1. [ ] Read the list.');
    expect(JSON.parse(finalText)).toMatchObject({ responseType: 'change', assistantSummary: expect.stringContaining('step-01') });
  });
});

describe('recording', () => {
  it('records method, path, headers with the Authorization kept, and the JSON body', async () => {
    await client.chat.completions.create({ model: 'm', messages: hello });
    const [recorded] = server.requests;
    expect(recorded).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'm', messages: hello } });
    expect(recorded?.headers['authorization']).toBe('Bearer sk-test-server-key');
  });

  it('offers a redacted copy that is safe to print', async () => {
    await client.models.list();
    const [redacted] = server.redactedRequests();
    expect(redacted?.path).toBe('/v1/models');
    expect(redacted?.headers['authorization']).toBe('Bearer ***REDACTED***');
    expect(JSON.stringify(server.redactedRequests())).not.toContain('sk-test-server-key');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-test-server-key');
  });

  it('reset() forgets requests, queued faults and scenarios, and restarts the call index', async () => {
    server.setScenario({ content: 'custom' });
    server.failNext({ fault: 'server_error' }, 3);
    await expect(client.chat.completions.create({ model: 'm', messages: hello })).rejects.toThrow();
    server.reset();
    expect(server.requests).toHaveLength(0);
    let index = -1;
    const completion = await client.chat.completions.create({ model: 'm', messages: hello });
    expect(completion.choices[0]?.message.content).toContain('scripted echo model');
    server.setScenario((r) => {
      index = r.callIndex;
      return { content: 'x' };
    });
    await client.chat.completions.create({ model: 'm', messages: hello });
    expect(index).toBe(1);
  });

  it('answers unknown paths with an OpenAI-style 404', async () => {
    await expect(client.embeddings.create({ model: 'm', input: 'x' })).rejects.toMatchObject({ status: 404 });
  });
});
