/** The loop's pure parts: the offered tools, the final-answer reader, the summaries, the delta coalescer. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { READ_TOOLS } from '../tools/read-tools.ts';
import { fromWireName } from '../tools/registry.ts';
import { DeltaCoalescer } from './delta-coalescer.ts';
import { MAX_SUMMARY_CHARS, parseFinalAnswer, summaryOnly } from './final-answer.ts';
import { offeredToolNames, offeredTools } from './offered-tools.ts';
import { unreadableResponsesInARow } from './tool-calls.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import { argumentsSummary, resultSummary, resultWords } from './summaries.ts';
import { toolError, toolOk } from '../../../shared/ai/tool-envelope.ts';

describe('offered tools', () => {
  it('offers every model tool under its wire name, never apply', () => {
    const names = offeredTools(false).map((t) => t.function.name);
    expect(names).toEqual(offeredToolNames(false).map((n) => n.replaceAll('.', '_')));
    expect(names).toContain('builder_change_stage');
    expect(names).not.toContain('builder_change_apply');
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names.map(fromWireName)).toEqual(offeredToolNames(false));
  });

  it('offers no staging in a suggest-only turn', () => {
    const names = offeredTools(true).map((t) => t.function.name);
    expect(names).not.toContain('builder_change_stage');
    expect(names).not.toContain('builder_change_discard');
    expect(names).toContain('builder_change_validate');
    expect(names).toContain('builder_step_read');
  });

  it('describes each read tool with the JSON Schema of the zod schema that parses its arguments', () => {
    const step = offeredTools(false).find((t) => t.function.name === 'builder_step_read')!;
    const parameters = step.function.parameters as { required: string[]; additionalProperties: boolean; properties: Record<string, unknown> };
    expect(parameters.required).toEqual(['workflowId', 'nodeId']);
    expect(parameters.additionalProperties).toBe(false);
    expect(Object.keys(parameters.properties).sort()).toEqual(Object.keys(READ_TOOLS['builder.step.read'].args.shape).sort());
    expect(step.function.parameters).not.toHaveProperty('$schema');
  });

  it('gives the stage tool the full changeSet schema', () => {
    const stage = offeredTools(false).find((t) => t.function.name === 'builder_change_stage')!;
    const changeSet = (stage.function.parameters as { properties: { changeSet: { required: string[]; properties: Record<string, unknown> } } }).properties.changeSet;
    expect(changeSet.required).toEqual(expect.arrayContaining(['schemaVersion', 'targetType', 'mode', 'operations']));
    // The impact is derived by the system; a model may still declare one, but it is not required.
    expect(changeSet.required).not.toContain('impact');
    expect(changeSet.properties).toHaveProperty('operations');
    expect(changeSet.properties).toHaveProperty('impact');
  });
});

describe('the final answer', () => {
  it('reads the JSON contract, fenced or not', () => {
    const json = JSON.stringify({ responseType: 'change', assistantSummary: 'Updated 1 step.' });
    expect(parseFinalAnswer(json, 'stop')).toEqual({ ok: true, fromJson: true, said: 'Updated 1 step.', answer: { responseType: 'change', assistantSummary: 'Updated 1 step.' } });
    expect(parseFinalAnswer('```json\n' + json + '\n```', 'stop')).toMatchObject({ ok: true, answer: { responseType: 'change' } });
    // Trailing commas and a null changeSet, as common models send them.
    expect(parseFinalAnswer('```json\n{"responseType": "chat", "assistantSummary": "Hi.", "changeSet": null,}\n```', 'stop')).toEqual({
      ok: true,
      fromJson: true,
      said: 'Hi.',
      answer: { responseType: 'chat', assistantSummary: 'Hi.' },
    });
  });

  it('reads the contract under the other names and cases models give its keys and its responseType', () => {
    const read = (answer: unknown) => parseFinalAnswer(typeof answer === 'string' ? answer : JSON.stringify(answer), 'stop');
    expect(read({ response_type: 'change', assistant_summary: 'Updated 1 step.' })).toEqual({ ok: true, fromJson: true, said: 'Updated 1 step.', answer: { responseType: 'change', assistantSummary: 'Updated 1 step.' } });
    expect(read({ type: 'Chat', summary: 'Nothing to change.' })).toEqual({ ok: true, fromJson: true, said: 'Nothing to change.', answer: { responseType: 'chat', assistantSummary: 'Nothing to change.' } });
    expect(read({ responseType: 'CHANGES', message: 'Added a check.' })).toMatchObject({ ok: true, answer: { responseType: 'change', assistantSummary: 'Added a check.' } });
    // No responseType: a changeSet says "change", none says "chat".
    expect(read({ assistantSummary: 'Here it is.', change_set: { schemaVersion: '1.0' } })).toEqual({
      ok: true,
      fromJson: true,
      said: 'Here it is.',
      answer: { responseType: 'change', assistantSummary: 'Here it is.', changeSet: { schemaVersion: '1.0' } },
    });
    expect(read({ assistantSummary: 'Just answering.' })).toMatchObject({ ok: true, answer: { responseType: 'chat' } });
    // A summary must still be text: an object under "message" is not taken for it.
    expect(read({ responseType: 'chat', message: { text: 'x' } })).toMatchObject({ ok: false, problem: expect.stringContaining('assistantSummary') });
    // In prose, the snake_case contract is found as the camelCase one is.
    expect(read('Done! {"response_type": "change", "assistant_summary": "Cited the policy."} Bye.')).toEqual({
      ok: true,
      fromJson: true,
      said: 'Cited the policy.',
      answer: { responseType: 'change', assistantSummary: 'Cited the policy.' },
    });
  });

  it('keeps a changeSet the answer carries', () => {
    const parsed = parseFinalAnswer(JSON.stringify({ responseType: 'change', assistantSummary: 's', changeSet: { schemaVersion: '1.0' } }), 'stop');
    expect(parsed).toMatchObject({ ok: true, answer: { changeSet: { schemaVersion: '1.0' } } });
  });

  it('reads the contract after reasoning left in the content and around prose, and keeps its changeSet', () => {
    const answer = { responseType: 'change', assistantSummary: 'Cited the policy.', changeSet: { schemaVersion: '1.0' } };
    const json = JSON.stringify(answer, null, 2);
    const expected = { ok: true, fromJson: true, said: 'Cited the policy.', answer };
    // DeepSeek-R1 distills and Qwen3 behind Ollama: the reasoning first, with braces of its own.
    expect(parseFinalAnswer(`<think>\nI should add {a line}.\n</think>\n\n${json}`, 'stop')).toEqual(expected);
    expect(parseFinalAnswer(`<think>plan</think>\n\`\`\`json\n${json}\n\`\`\``, 'stop')).toEqual(expected);
    // A sentence before the fenced contract, or before and after the bare object.
    expect(parseFinalAnswer(`Here is my answer:\n\`\`\`json\n${json}\n\`\`\`\nLet me know.`, 'stop')).toEqual(expected);
    expect(parseFinalAnswer(`Done. ${JSON.stringify(answer)} Thanks.`, 'stop')).toEqual(expected);
  });

  it('never shows reasoning as the summary, and says so when there is nothing after it', () => {
    expect(parseFinalAnswer('<think>Is the step fine? Yes.</think>\nThe step is fine as it is.', 'stop')).toEqual({
      ok: true,
      fromJson: false,
      said: 'The step is fine as it is.',
      answer: { responseType: 'chat', assistantSummary: 'The step is fine as it is.' },
    });
    const onlyThinking = parseFinalAnswer('<think>Still thinking about {it}', 'stop');
    expect(onlyThinking).toMatchObject({ ok: false, problem: expect.stringContaining('only reasoning') });
  });

  it('leaves prose with an example object alone when it does not name the contract', () => {
    const prose = 'Use a front matter like {"title": "x"} in each step.';
    expect(parseFinalAnswer(prose, 'stop')).toEqual({ ok: true, fromJson: false, said: prose, answer: { responseType: 'chat', assistantSummary: prose } });
  });

  it('accepts prose as a chat summary', () => {
    expect(parseFinalAnswer('I tightened the goal of the step.', 'stop')).toEqual({
      ok: true,
      fromJson: false,
      said: 'I tightened the goal of the step.',
      answer: { responseType: 'chat', assistantSummary: 'I tightened the goal of the step.' },
    });
  });

  it.each([
    ['', 'stop', 'empty'],
    ['   ', 'stop', 'empty'],
    ['{"responseType":"banana","assistantSummary":"x"}', 'stop', 'contract'],
    ['{"responseType":"chat"', 'stop', 'JSON'],
    ['{not json}', 'stop', 'does not parse'],
    ['A long answer that was', 'length', 'cut off'],
    ['Anything', 'content_filter', 'filter'],
  ] as const)('refuses %j (finish %s)', (content, finish, problem) => {
    const parsed = parseFinalAnswer(content, finish);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(problem);
  });

  it('keeps the chat summary-only: file contents are replaced, length is capped', () => {
    const file = ['```markdown', ...Array.from({ length: 20 }, (_, i) => `line ${i}`), '```'].join('\n');
    const summary = summaryOnly(`Here is the new step:\n${file}\nDone.`);
    expect(summary).toContain('[Full contents are in the diff.]');
    expect(summary).not.toContain('line 12');
    expect(summaryOnly('Use `a`:\n```\nshort\n```')).toContain('short');
    expect(summaryOnly('x'.repeat(5000))).toHaveLength(MAX_SUMMARY_CHARS);
  });

  it('cuts an over-long JSON summary like prose, never asking again for length alone', () => {
    const long = `I made no change. ${'The step reads well. '.repeat(16_000)}`;
    const read = parseFinalAnswer(JSON.stringify({ responseType: 'chat', assistantSummary: long }), 'stop');
    expect(read).toMatchObject({ ok: true, fromJson: true, said: long, answer: { responseType: 'chat' } });
    const summary = read.ok ? read.answer.assistantSummary : '';
    expect(summary).toHaveLength(MAX_SUMMARY_CHARS);
    expect(summary).toBe(summaryOnly(long));
  });
});

describe('unreadable tool calls', () => {
  const call = (id: string, args: string) => ({ id, type: 'function' as const, function: { name: 'builder_step_read', arguments: args } });
  const response = (...calls: Array<ReturnType<typeof call>>): ChatMessage => ({ role: 'assistant', content: null, tool_calls: calls });
  const result = (id: string, ok: boolean): ChatMessage => ({
    role: 'tool',
    tool_call_id: id,
    content: JSON.stringify(ok ? toolOk({}, { revision: null }) : toolError('AI_TOOL_EXECUTION_ERROR', { message: 'The arguments are not valid JSON; the tool did not run.' })),
  });

  it('counts the latest responses in a row whose every call was refused as not JSON, pairing results with their own response', () => {
    // llama.cpp and text-recovered calls repeat ids from one response to the next.
    const broken = [response(call('call_0', 'x')), result('call_0', false)];
    const readable = [response(call('call_0', '{}')), result('call_0', true)];
    expect(unreadableResponsesInARow([...broken, ...broken])).toBe(2);
    expect(unreadableResponsesInARow([...broken, ...readable])).toBe(0);
    expect(unreadableResponsesInARow([...readable, ...broken])).toBe(1);
    expect(unreadableResponsesInARow([...broken, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Again.' }, ...broken])).toBe(1);
    // One readable call among unreadable ones: the model can still act.
    expect(unreadableResponsesInARow([...broken, response(call('a', 'x'), call('b', '{}')), result('a', false), result('b', true)])).toBe(0);
  });
});

describe('summaries', () => {
  it('says what a call asks for, without contents', () => {
    expect(argumentsSummary('builder.step.read', { workflowId: 'wf', nodeId: 'n1' })).toBe('step wf/n1');
    expect(argumentsSummary('builder.asset.read', { path: 'assets/a.md', offset: 12000 })).toBe('asset assets/a.md from 12000');
    expect(argumentsSummary('builder.refs.find', { locator: { type: 'agent', id: 'auditor' } })).toBe('references of agent auditor');
    const stage = argumentsSummary('builder.change.stage', {
      changeSet: {
        operations: [
          { op: 'upsert', targetType: 'step', target: { workflowId: 'wf', nodeId: 'n1' }, payload: { stepMarkdown: 'SECRET CONTENT' } },
          { op: 'delete', targetType: 'asset', target: { path: 'assets/old.md' } },
        ],
      },
    });
    expect(stage).toBe('2 operations: upsert step n1, delete asset assets/old.md');
    expect(argumentsSummary('unknown.tool', { a: 1, b: 'x', c: [1, 2], d: 4 })).toBe('a=1, b=x, c=[2]');
  });

  it('says what a call answered', () => {
    expect(resultSummary('builder.change.stage', toolOk({ version: 3, files: [{ action: 'M', key: 'step:wf/n1' }] }, { revision: null }))).toBe('staged version 3: M step:wf/n1');
    expect(resultSummary('builder.change.validate', toolOk({ valid: false, errors: [1, 2], warnings: [] }, { revision: null }))).toBe('2 error(s), 0 warning(s)');
    expect(resultSummary('builder.change.validate', toolOk({ valid: true, errors: [], warnings: [1] }, { revision: null }))).toBe('valid, 1 warning(s)');
    expect(resultSummary('builder.step.read', toolError('STEP_NOT_FOUND', { message: 'No step n9.' }))).toBe('STEP_NOT_FOUND: No step n9.');
    expect(resultSummary('builder.step.read', toolOk({ markdown: 'abc' }, { revision: 2, staged: true }))).toBe('18 characters (staged)');
  });

  it('serialises a read result once for the summary and the words of its tool.finished', () => {
    let serialised = 0;
    const data = { markdown: 'abc', toJSON: () => (serialised++, { markdown: 'abc' }) };
    const result = toolOk(data, { revision: 2 });
    expect(resultSummary('builder.step.read', result)).toBe('18 characters');
    expect(resultWords('builder.step.read', result)).toEqual({ code: 'characters', params: { count: 18 } });
    expect(serialised).toBe(1);
    // Another result (the next call's) is measured on its own.
    expect(resultSummary('builder.step.read', toolOk({ markdown: 'abcdef' }, { revision: 2 }))).toBe('21 characters');
    // Thousands grouped as in English, whatever the runtime's own locale.
    expect(resultSummary('builder.step.read', toolOk({ markdown: 'x'.repeat(1_234_567) }, { revision: 2 }))).toBe('1,234,582 characters');
  });
});

describe('the delta coalescer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends at most one event per interval, and the tail after the interval', () => {
    const sent: string[] = [];
    const coalescer = new DeltaCoalescer((text) => sent.push(text), 50);
    coalescer.push('He'); // first chunk goes at once
    coalescer.push('ll');
    coalescer.push('o');
    expect(sent).toEqual(['He']);
    vi.advanceTimersByTime(49);
    expect(sent).toEqual(['He']);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual(['He', 'llo']);
    coalescer.push(' world');
    coalescer.flush();
    expect(sent).toEqual(['He', 'llo', ' world']);
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(3);
  });

  it('ignores empty text and flushes nothing when nothing is pending', () => {
    const sent: string[] = [];
    const coalescer = new DeltaCoalescer((text) => sent.push(text));
    coalescer.push('');
    coalescer.flush();
    expect(sent).toEqual([]);
  });
});
