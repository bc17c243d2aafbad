// Real servers' quirks as the scripted server plays them, seen through the real openai SDK: per-script
// refusals (an unknown parameter, a model without tools), a server that does not stream, tool calls
// without ids, and Azure's path.
import OpenAI, { BadRequestError } from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { scriptModel } from '../../workers/scripted-model.ts';
import { startScriptedOpenAI, type ScriptedOpenAI } from './server.ts';

const server: ScriptedOpenAI = await startScriptedOpenAI({ control: true });
const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-quirks-test', maxRetries: 0 });
const root = server.url.replace(/\/v1$/, '');
const messages = [{ role: 'user' as const, content: 'hi' }];
const tools: ChatCompletionTool[] = [{ type: 'function', function: { name: 'builder_step_read', parameters: { type: 'object' } } }];

afterAll(() => server.close());
beforeEach(() => server.reset());

describe('per-script quirks', () => {
  it('refuses a parameter it does not know with Azure\'s words, and answers without it', async () => {
    const { model } = await scriptModel(server.url, [{ content: 'ok' }], { quirks: { rejectParams: ['stream_options'] } });
    const refused = client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Unrecognized request argument supplied: stream_options') });
    const completion = await client.chat.completions.create({ model, messages });
    expect(completion.choices[0]?.message.content).toBe('ok');
  });

  it('answers Ollama\'s and vLLM\'s "no tools" 400 only when tools are offered', async () => {
    const ollama = await scriptModel(server.url, [{ content: 'ok' }], { quirks: { noTools: 'ollama' } });
    const error = await client.chat.completions.create({ model: ollama.model, messages, tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toContain(`registry.ollama.ai/library/${ollama.model} does not support tools`);
    expect((await client.chat.completions.create({ model: ollama.model, messages })).choices[0]?.message.content).toBe('ok');
    const vllm = await scriptModel(server.url, [{ content: 'ok' }], { quirks: { noTools: 'vllm' } });
    await expect(client.chat.completions.create({ model: vllm.model, messages, tools })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
    });
  });
});

describe('a server that does not stream', () => {
  it('answers a stream request with one JSON completion, tool calls and all', async () => {
    const { model } = await scriptModel(server.url, [{ content: 'reading', toolCalls: [{ name: 'builder_step_read', arguments: { stepId: 'a' } }] }], {
      quirks: { ignoreStream: true },
    });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-quirks-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages, tools, stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const completion = (await response.json()) as OpenAI.ChatCompletion;
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'builder_step_read', arguments: '{"stepId":"a"}' } });
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
  });
});

describe('tool calls without ids', () => {
  it('leaves `id` out of every call when omitIds is set', async () => {
    const { model } = await scriptModel(server.url, [{ omitIds: true, toolCalls: [{ name: 'builder_step_read', arguments: {}, id: 'ignored' }] }]);
    const completion = await client.chat.completions.create({ model, messages, tools });
    expect(completion.choices[0]?.message.tool_calls?.[0]).not.toHaveProperty('id');
  });
});

describe('Azure OpenAI path', () => {
  it('serves /openai/deployments/<d>/chat/completions with api-version and the api-key header, and refuses without them', async () => {
    const { model, requests } = await scriptModel(server.url, [{ content: 'from azure' }]);
    const base = `${root}/openai/deployments/${model}`;
    const azure = new OpenAI({ baseURL: base, apiKey: 'azure-key', defaultHeaders: { Authorization: null, 'api-key': 'azure-key' }, defaultQuery: { 'api-version': '2024-10-21' }, maxRetries: 0 });
    const completion = await azure.chat.completions.create({ model, messages });
    expect(completion.choices[0]?.message.content).toBe('from azure');
    expect((await requests())[0]).toMatchObject({ path: `/openai/deployments/${model}/chat/completions`, query: { 'api-version': '2024-10-21' } });
    const noVersion = new OpenAI({ baseURL: base, apiKey: 'azure-key', defaultHeaders: { 'api-key': 'azure-key' }, maxRetries: 0 });
    await expect(noVersion.chat.completions.create({ model, messages })).rejects.toMatchObject({ status: 404 });
    const bearer = new OpenAI({ baseURL: base, apiKey: 'azure-key', defaultQuery: { 'api-version': '2024-10-21' }, maxRetries: 0 });
    await expect(bearer.chat.completions.create({ model, messages })).rejects.toMatchObject({ status: 401 });
  });
});
