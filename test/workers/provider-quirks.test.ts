/**
 * Provider quirks of real servers (issue 14, item 5), each through a full AI turn inside workerd: the
 * real Worker and session object, the real `openai` SDK, and the scripted server playing the quirk
 * (DeepSeek reasoning, tool calls written as text, ids missing or repeated, servers that refuse
 * stream_options or tools or do not stream at all, Azure base URLs). Each test checks the turn's ending, its events, and what
 * was sent to the model or staged.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { ServerQuirks } from '../support/scripted-openai/types.ts';
import { controlRoot, scriptModel, type ScriptStep, type ScriptedModel } from './scripted-model.ts';
import { STEP, WF, connect, currentStep, supportDeskProject, stepChangeSet, stepSession } from './sessions.ts';
import { CANARY_KEY, finalAnswer, objectRows, send, toolCall, turnEnd } from './turns.ts';
import { guardLogs } from './log-canary.ts';
import { NO_ANSWER } from '../../durable-objects/ai-session/prompt/history.ts';

// Nothing this file's faults make the Worker or the session object log may carry a key, an email or a hash.
guardLogs();

const STEP_READ = toolCall('builder.step.read', { workflowId: WF, nodeId: STEP });
const CONTEXT_GET = toolCall('builder.context.get', {});
const POLICY_READ = toolCall('builder.asset.read', { path: 'assets/policies/support-policy.md' });

interface Options {
  quirks?: ServerQuirks;
  /** The base URL to save in the profile, given the model name (default: the scripted server's /v1). */
  baseUrl?: (model: string) => string;
}

/** A step session whose owner's model plays `steps`, and a socket watching it. */
async function bench(steps: ScriptStep[], options: Options = {}) {
  const project = await supportDeskProject();
  const sessionId = await stepSession(project.owner, project.base);
  const path = `${project.base}/ai/sessions/${sessionId}`;
  const scripted = await scriptModel(env.SCRIPTED_OPENAI_URL, steps, options.quirks ? { quirks: options.quirks } : {});
  const saved = await project.owner.put('/api/users/me/llm-profile', {
    provider: 'openai-compatible',
    preset: 'custom',
    baseUrl: options.baseUrl?.(scripted.model) ?? env.SCRIPTED_OPENAI_URL,
    model: scripted.model,
    apiKey: CANARY_KEY,
    timeoutSeconds: 30,
    contextWindow: 128_000,
  });
  if (saved.status !== 200) throw new Error(`profile failed: ${JSON.stringify(saved.error)}`);
  const watcher = await connect(project.owner, project.base, sessionId);
  return { ...project, sessionId, path, scripted, watcher };
}
type Bench = Awaited<ReturnType<typeof bench>>;

/** Send a message and wait for the turn's ending; the turn's events in order. */
async function runTurn(b: Bench, content = 'Improve the step.') {
  const accepted = await send(b.owner, b.path, content);
  expect(accepted.status).toBe(202);
  const turnId = accepted.data.turnId as string;
  const end = await turnEnd(b.watcher, turnId);
  const events = b.watcher.events().filter((e) => e.turnId === turnId);
  return { turnId, end, events };
}

function bodies(requests: Awaited<ReturnType<ScriptedModel['requests']>>): any[] {
  return requests.map((r) => r.body);
}

/**
 * The model reads the step, stages it with `line` added, and answers: the turn finishes with a valid
 * change, both tools ran, and the line is staged. `readName` and `stageName` are how the model spells
 * the tools; `readReply`, `stageReply` and `answerReply` add to its three replies (text, wire
 * quirks). The turn's events, for more checks.
 */
async function readThenStage(
  b: Bench,
  line: string,
  spelling: { readName?: string; stageName?: string; readReply?: Record<string, unknown>; stageReply?: Record<string, unknown>; answerReply?: Record<string, unknown> } = {},
) {
  const before = await currentStep(b.owner, b.base);
  const markdown = `${before.markdown.trimEnd()}\n\n${line}\n`;
  const stage = toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) });
  await b.scripted.queue({ ...spelling.readReply, toolCalls: [{ ...STEP_READ, ...(spelling.readName ? { name: spelling.readName } : {}) }] });
  await b.scripted.queue({ ...spelling.stageReply, toolCalls: [{ ...stage, ...(spelling.stageName ? { name: spelling.stageName } : {}) }] });
  await b.scripted.queue({ ...finalAnswer('Added a line to the step.'), ...spelling.answerReply });
  const { end, events } = await runTurn(b);
  expect(end.type).toBe('turn.finished');
  expect(end.payload).toMatchObject({ responseType: 'change', valid: true });
  expect(events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([
    ['builder.step.read', true],
    ['builder.change.stage', true],
  ]);
  expect(JSON.stringify((await b.owner.get(`${b.path}/changes`)).data)).toContain(line);
  return events;
}

describe('provider quirks through a full turn', () => {
  it('DeepSeek reasoning_content: kept out of the summary and the streamed text, sent back within the turn', async () => {
    const b = await bench([
      { reasoningContent: 'Thinking: the user wants the step read first.', toolCalls: [STEP_READ] },
      { reasoningContent: 'Thinking: now I can answer.', ...finalAnswer('The step reads well; nothing to change.', 'chat') },
    ]);
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(end.payload.summary).toBe('The step reads well; nothing to change.');
    const streamed = events.filter((e) => e.type === 'assistant.delta').map((e) => e.payload.text).join('');
    expect(streamed).not.toContain('Thinking');
    const second = bodies(await b.scripted.requests())[1];
    const assistant = second.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.reasoning_content).toBe('Thinking: the user wants the step read first.');
    const state = (await b.owner.get(b.path)).data;
    expect(JSON.stringify(state.messages.items)).not.toContain('Thinking');
  });

  it('tool calls written as text (<tool_call>, fenced JSON, [TOOL_CALLS], <function=…>) run as real calls of offered tools', async () => {
    const b = await bench([
      { content: `I will read the step.\n<tool_call>\n${JSON.stringify({ name: 'builder_step_read', arguments: { workflowId: WF, nodeId: STEP } })}\n</tool_call>` },
      { content: '```json\n' + JSON.stringify({ name: 'builder.context.get', arguments: {} }) + '\n```' },
      { content: `[TOOL_CALLS] ${JSON.stringify([{ name: 'builder_asset_read', arguments: { path: 'assets/policies/support-policy.md' } }])}` },
      { content: `<function=builder_step_read>${JSON.stringify({ workflowId: WF, nodeId: STEP })}</function>` },
      finalAnswer('Read the step and the context.', 'chat'),
    ]);
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    const finished = events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok]);
    expect(finished).toEqual([
      ['builder.step.read', true],
      ['builder.context.get', true],
      ['builder.asset.read', true],
      ['builder.step.read', true],
    ]);
    const completed = events.filter((e) => e.type === 'llm.completed').map((e) => e.payload.toolCallsFromText ?? false);
    expect(completed).toEqual([true, true, true, true, false]);
    const last = bodies(await b.scripted.requests())[4];
    const calls = last.messages.filter((m: any) => m.role === 'assistant').flatMap((m: any) => m.tool_calls ?? []);
    const results = last.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id);
    expect(calls.map((c: any) => c.function.name)).toEqual(['builder_step_read', 'builder_context_get', 'builder_asset_read', 'builder_step_read']);
    expect(results).toEqual(calls.map((c: any) => c.id));
    expect(last.messages.find((m: any) => m.role === 'assistant').content).toBe('I will read the step.');
  });

  // Qwen on vLLM without a tool parser, Llama cut off mid-call: markup no one can read is never the answer.
  const CUT = `{"name": "builder_change_stage", "arguments": {"changeSet": {"schemaVersion": "1.0", "targetType": "step", "operations": [{"op": "update", "target": {"workflowId": "${WF}"`;
  it.each([
    ['an unclosed <tool_call>', `<tool_call>\n${CUT}`],
    ["Llama's <|python_tag|>", `<|python_tag|>${CUT.replace('"arguments"', '"parameters"')}`],
    ['prose, then an unclosed ```json fence', `I will stage the change now.\n\n\`\`\`json\n${CUT}`],
  ])('a tool call written as text that cannot be read (%s) ends as unreadable arguments, never as a chat of markup', async (_, content) => {
    const b = await bench([{ content }, { content }, finalAnswer('never asked for', 'chat')], { quirks: { alternatingRoles: true } });
    const { end, events } = await runTurn(b);
    expect(end).toMatchObject({ type: 'turn.failed', payload: { code: 'AI_TOOL_ARGUMENTS_UNREADABLE' } });
    expect(end.payload.hints.join('\n')).toContain('--tool-call-parser');
    expect(JSON.stringify(end.payload)).not.toContain('builder_change_stage", "');
    expect(events.some((e) => e.type === 'turn.finished')).toBe(false);
    expect(events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([
      ['builder.change.stage', false],
      ['builder.change.stage', false],
    ]);
    expect(await b.scripted.requests()).toHaveLength(2);
    expect((await b.owner.get(`${b.path}/changes`)).data.files).toEqual([]);
  });

  it('a model that answers after its unreadable text call was refused finishes with that answer', async () => {
    const b = await bench([{ content: `<tool_call>\n${CUT}` }, finalAnswer('The step is fine as it is.', 'chat')]);
    const { end } = await runTurn(b);
    expect(end).toMatchObject({ type: 'turn.finished', payload: { responseType: 'chat', summary: 'The step is fine as it is.' } });
  });

  it('several tool calls in one response each run once, in order, with their own result', async () => {
    const b = await bench([{ toolCalls: [CONTEXT_GET, STEP_READ, POLICY_READ] }, finalAnswer('Read three things.', 'chat')]);
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([
      ['builder.context.get', true],
      ['builder.step.read', true],
      ['builder.asset.read', true],
    ]);
    const second = bodies(await b.scripted.requests())[1];
    const calls = second.messages.find((m: any) => m.role === 'assistant').tool_calls.map((c: any) => c.id);
    expect(second.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).toEqual(calls);
    expect(new Set(calls).size).toBe(3);
  });

  it('tool call ids missing or repeated: every call still runs once, with its own arguments', async () => {
    const b = await bench([
      { omitIds: true, toolCalls: [CONTEXT_GET, STEP_READ] },
      { toolCalls: [{ ...POLICY_READ, id: 'call_dup' }, { ...STEP_READ, id: 'call_dup' }] },
      finalAnswer('Read everything.', 'chat'),
    ]);
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    const finished = events.filter((e) => e.type === 'tool.finished');
    expect(finished.map((e) => [e.payload.iteration, e.payload.name, e.payload.ok])).toEqual([
      [1, 'builder.context.get', true],
      [1, 'builder.step.read', true],
      [2, 'builder.asset.read', true],
      [2, 'builder.step.read', true],
    ]);
    const perIteration = (n: number) => finished.filter((e) => e.payload.iteration === n).map((e) => e.payload.toolCallId);
    expect(new Set(perIteration(1)).size).toBe(2);
    expect(new Set(perIteration(2)).size).toBe(2);
    const runs = await objectRows(b.sessionId, "SELECT name FROM tool_runs WHERE status = 'finished' ORDER BY iteration, tool_call_id");
    expect(runs).toHaveLength(4);
    // What went back to the model pairs every call with exactly one result.
    const last = bodies(await b.scripted.requests())[2];
    const sent = last.messages.filter((m: any) => m.role === 'assistant').flatMap((m: any) => m.tool_calls.map((c: any) => c.id));
    expect(last.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.tool_call_id)).toEqual(sent);
    expect(new Set(sent).size).toBe(4);
  });

  it('finish_reason "stop" that still carries tool calls: the calls run', async () => {
    const b = await bench([{ toolCalls: [STEP_READ], finishReason: 'stop' }, finalAnswer('Read it.', 'chat')]);
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(events.filter((e) => e.type === 'llm.completed')[0]!.payload).toMatchObject({ finishReason: 'stop', toolCalls: 1 });
    expect(events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([['builder.step.read', true]]);
  });

  it('arguments split over many chunks, with empty content: the change set is staged whole', async () => {
    const b = await bench([{ content: 'unused: the queue answers the first request' }, finalAnswer('Added a line to the step.')]);
    const before = await currentStep(b.owner, b.base);
    const markdown = `${before.markdown.trimEnd()}\n\nCheck every line against the policy, one character at a time.\n`;
    await b.scripted.queue({ content: '', fragmentChars: 1, toolCalls: [toolCall('builder.change.stage', { changeSet: stepChangeSet(markdown) })] });
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true });
    // Only tool calls: no text was streamed for the first response.
    expect(events.filter((e) => e.type === 'assistant.delta' && e.payload.iteration === 1)).toEqual([]);
    const changes = (await b.owner.get(`${b.path}/changes`)).data;
    expect(JSON.stringify(changes)).toContain('one character at a time');
  });

  it('a name streamed in pieces (Gemini), and streams closed by [DONE] with no finish reason or "": the calls run, the change is staged', async () => {
    const b = await bench([{ content: 'unused: the queue answers' }]);
    const events = await readThenStage(b, 'Name the policy section you used.', {
      readReply: { nameFragmentChars: 8 },
      stageReply: { finishReasonOnWire: 'null' },
      answerReply: { finishReasonOnWire: 'empty' },
    });
    expect(events.filter((e) => e.type === 'llm.completed').map((e) => e.payload.finishReason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
  });

  it("vLLM's tool parser damage (arguments sent twice in a row, the last } dropped): the calls run once, the change is staged", async () => {
    const b = await bench([{ content: 'unused: the queue answers' }]);
    const before = await currentStep(b.owner, b.base);
    const stageArgs = JSON.stringify({ changeSet: stepChangeSet(`${before.markdown.trimEnd()}\n\nQuote the ticket number in every reply.\n`) });
    await b.scripted.queue({ toolCalls: [{ ...STEP_READ, arguments: JSON.stringify(STEP_READ.arguments).slice(0, -1) }] });
    await b.scripted.queue({ toolCalls: [{ name: 'builder_change_stage', arguments: stageArgs + stageArgs }] });
    await b.scripted.queue(finalAnswer('Added a line to the step.'));
    const { end, events } = await runTurn(b);
    expect(end.type, JSON.stringify(end.payload)).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'change', valid: true });
    expect(events.filter((e) => e.type === 'tool.finished').map((e) => [e.payload.name, e.payload.ok])).toEqual([
      ['builder.step.read', true],
      ['builder.change.stage', true],
    ]);
    expect(JSON.stringify((await b.owner.get(`${b.path}/changes`)).data)).toContain('Quote the ticket number in every reply.');
  });

  it('a server that answers a stream request with one JSON completion: its tool calls run, its change set is staged, its text is shown', async () => {
    const b = await bench([{ content: 'unused: the queue answers' }], { quirks: { ignoreStream: true } });
    const events = await readThenStage(b, "Answer in the customer's own words first.", { readReply: { content: 'Reading the step first.' } });
    // The whole text arrives as one delta, and the usage the body reported is kept (not estimated).
    const deltas = events.filter((e) => e.type === 'assistant.delta' && e.payload.iteration === 1).map((e) => e.payload.text);
    expect(deltas.join('')).toBe('Reading the step first.');
    const completed = events.filter((e) => e.type === 'llm.completed').map((e) => e.payload);
    expect(completed.map((p) => p.usageEstimated ?? false)).toEqual([false, false, false]);
  });

  it('tool names as chat templates leave them (functions. prefix, other case, dots) run as the tools they name', async () => {
    const b = await bench([{ content: 'unused: the queue answers' }]);
    await readThenStage(b, 'Quote the policy line you relied on.', { readName: 'functions.builder_step_read', stageName: 'Builder.Change.Stage' });
  });

  it('a server that refuses stream_options: the request is sent once more without it, usage is estimated', async () => {
    const b = await bench([{ toolCalls: [STEP_READ] }, finalAnswer('Read it.', 'chat')], { quirks: { rejectParams: ['stream_options'] } });
    const { end, events } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    const sent = bodies(await b.scripted.requests());
    // Refused, then the same request without it; the next iteration remembers.
    expect(sent.map((body) => 'stream_options' in body)).toEqual([true, false, false]);
    expect(sent[1].messages).toEqual(sent[0].messages);
    const completed = events.filter((e) => e.type === 'llm.completed').map((e) => e.payload);
    expect(completed.every((p) => p.usageEstimated === true && p.usage.totalTokens > 0)).toBe(true);
    expect(end.payload.usage.totalTokens).toBeGreaterThan(0);
  });

  it.each([
    ['vLLM without a tool parser (it answers for tool_choice "auto")', 'vllm' as const, /--enable-auto-tool-choice/],
    ['Ollama with a model without tools', 'ollama' as const, /qwen2\.5|llama3\.1/],
  ])('%s: the turn fails with AI_MODEL_NO_TOOLS naming the model, not retried', async (_name, noTools, hint) => {
    const b = await bench([finalAnswer('never', 'chat')], { quirks: { noTools } });
    const { end } = await runTurn(b);
    expect(end.type).toBe('turn.failed');
    expect(end.payload.code).toBe('AI_MODEL_NO_TOOLS');
    expect(end.payload.message).toContain(`"${b.scripted.model}"`);
    expect(end.payload.hints.join(' ')).toMatch(hint);
    expect(await b.scripted.requests()).toHaveLength(1);
  });

  it('an Azure-style base URL with api-version: the deployment path, the api-version and the api-key header', async () => {
    const b = await bench([{ toolCalls: [STEP_READ] }, finalAnswer('Read it on Azure.', 'chat')], {
      baseUrl: (model) => `${controlRoot(env.SCRIPTED_OPENAI_URL)}/openai/deployments/${model}?api-version=2024-10-21`,
    });
    const { end } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(end.payload.summary).toBe('Read it on Azure.');
    const requests = await b.scripted.requests();
    expect(requests).toHaveLength(2);
    for (const r of requests) {
      expect(r.path).toBe(`/openai/deployments/${b.scripted.model}/chat/completions`);
      expect(r.query).toEqual({ 'api-version': '2024-10-21' });
      expect(r.headers['api-key']).toBe('***REDACTED***');
      expect(r.headers['authorization']).toBeUndefined();
    }
  });
  // Mistral, Gemma and Llama 2 chat templates (vLLM, TGI, llama.cpp) refuse two user messages in a
  // row: a turn that failed left its request without an answer, and every later turn failed with it.
  it('a server whose template needs alternating roles: the turn after a failed one still runs, told the request got no answer', async () => {
    const b = await bench([{ fault: 'insufficient_quota' }], { quirks: { alternatingRoles: true } });
    const failed = await runTurn(b, 'First request, which fails.');
    expect(failed.end.type).toBe('turn.failed');
    await b.scripted.queue(finalAnswer('Here is the answer to the second request.', 'chat'));
    const second = await runTurn(b, 'Second request.');
    expect(second.end.type).toBe('turn.finished');
    expect(second.end.payload.summary).toBe('Here is the answer to the second request.');
    const sent = bodies(await b.scripted.requests()).at(-1).messages as Array<{ role: string; content: string }>;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[1]!.content).toBe('First request, which fails.');
    expect(sent[2]!.content).toBe(NO_ANSWER);
  });
  // OpenAI's models decline with `refusal` and no content; the reason is what the person should see.
  it("a model that declines: its refusal is the turn's answer, not an empty one retried and failed", async () => {
    const b = await bench([{ content: '', refusal: "I can't help with rewriting this step." }]);
    const { end } = await runTurn(b);
    expect(end.type).toBe('turn.finished');
    expect(end.payload).toMatchObject({ responseType: 'chat', summary: "I can't help with rewriting this step." });
    expect(await b.scripted.requests()).toHaveLength(1);
  });
});
