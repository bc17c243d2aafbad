import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChangeSet } from './change-set.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';
import { parseJsonLenient, parseLenient, readObjectKey, withoutTrailingCommas } from './lenient-input.ts';

describe('parseJsonLenient', () => {
  const tools = { unwrapString: true };
  it('unwraps a markdown fence and drops trailing commas, saying so', () => {
    const read = parseJsonLenient('```json\n{"a": [1, 2,], "b": "x,}",}\n```');
    expect(read).toEqual({ ok: true, value: { a: [1, 2], b: 'x,}' }, notes: ['read the JSON inside the markdown code fence', 'ignored trailing commas'] });
  });

  it('reads double-encoded arguments as the object inside, only when asked', () => {
    const twice = JSON.stringify(JSON.stringify({ workflowId: 'wf' }));
    expect(parseJsonLenient(twice, { unwrapString: true })).toMatchObject({ ok: true, value: { workflowId: 'wf' } });
    expect(parseJsonLenient(twice)).toMatchObject({ ok: true, value: '{"workflowId":"wf"}' });
  });

  it('refuses what is not JSON even after the repairs', () => {
    expect(parseJsonLenient('{"a": 1, "b"', { unwrapString: true })).toEqual({ ok: false, problem: 'The text is not valid JSON.' });
    expect(parseJsonLenient("{'a': 1}").ok).toBe(false);
  });

  it("undoes what a server's tool parser did to streamed arguments, where only one reading is possible (vLLM #32152)", () => {
    const args = '{"changeSet": {"summary": "a } in {text}", "ops": [1, {"n": 2}]}}';
    const value = JSON.parse(args);
    // Sent twice in a row, with or without space between: read once.
    expect(parseJsonLenient(args + args, tools)).toEqual({ ok: true, value, notes: ["read the object sent twice in a row once (the server's tool parser repeated it)"] });
    expect(parseJsonLenient(`${args}\n${args}`, tools)).toMatchObject({ ok: true, value });
    // The last } dropped: put back.
    expect(parseJsonLenient(args.slice(0, -1), tools)).toEqual({ ok: true, value, notes: ["added the } missing at the very end (the server's tool parser dropped it)"] });
    expect(parseJsonLenient('{"a": 1', tools)).toMatchObject({ ok: true, value: { a: 1 } });
    // Only for tool arguments: a final answer is not parsed by a tool parser.
    expect(parseJsonLenient('{"a": 1').ok).toBe(false);
    expect(parseJsonLenient(args + args).ok).toBe(false);
  });

  it('leaves damage with more than one reading refused: two different objects, two braces missing, text around', () => {
    expect(parseJsonLenient('{"a": 1}{"a": 2}', tools).ok).toBe(false);
    expect(parseJsonLenient('{"a": 1}{"a": 1}{"a": 1}', tools).ok).toBe(false);
    expect(parseJsonLenient('{"a": {"b": 1', tools).ok).toBe(false);
    expect(parseJsonLenient('{"a": "open string', tools).ok).toBe(false);
    expect(parseJsonLenient('{"a": 1} and more', tools).ok).toBe(false);
    expect(parseJsonLenient('[1, 2', tools).ok).toBe(false);
  });

  it('refuses JSON nested deeper than MAX_JSON_DEPTH, also inside a fence or a double-encoded string', () => {
    const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
    expect(parseJsonLenient(deep)).toEqual({ ok: false, problem: expect.stringContaining(`${MAX_JSON_DEPTH} levels`) });
    expect(parseJsonLenient('```json\n' + deep + '\n```').ok).toBe(false);
    const doubled = JSON.stringify(`{"a":${deep}}`);
    const read = parseJsonLenient(doubled, { unwrapString: true });
    // The string itself is shallow; its inside is too deep, so it stays a string (the schema refuses it).
    expect(read).toMatchObject({ ok: true, value: `{"a":${deep}}` });
  });

  it('never touches commas inside strings', () => {
    expect(withoutTrailingCommas('{"s": "a, ]", "t": "\\", }",}')).toBe('{"s": "a, ]", "t": "\\", }"}');
  });
});

describe('parseLenient', () => {
  const Args = z.strictObject({ name: z.string(), offset: z.int().optional(), exact: z.boolean().optional(), note: z.string().optional() });

  it('reads null as absent, numeric strings as numbers and "true"/"false" as booleans, with notes', () => {
    const input = { name: 'x', offset: '12', exact: 'false', note: null };
    const { result, notes } = parseLenient(Args, input);
    expect(result.success && result.data).toEqual({ name: 'x', offset: 12, exact: false });
    expect(notes).toEqual(['read "offset": "12" as the number 12', 'read "exact": "false" as false', 'read "note": null as not given']);
    expect(input.note).toBe(null);
  });

  it('leaves what is not one clear reading to the schema: words for numbers, null for a required field', () => {
    expect(parseLenient(Args, { name: 'x', offset: 'twelve' }).result.success).toBe(false);
    const required = parseLenient(Args, { name: null });
    expect(required.result.success).toBe(false);
    expect(required.result.error?.issues[0]?.path).toEqual(['name']);
  });

  it('repairs inside a change set but never inside free JSON such as an agent', () => {
    const changeSet = {
      schemaVersion: '1.0',
      targetType: 'agent',
      mode: 'optimize',
      operations: [{ op: 'upsert', targetType: 'agent', target: { agentId: 'a' }, payload: { agent: { id: 'a', flag: 'true', gone: null } }, reason: null }],
      impact: { objects: ['agent:a'], requiresConfirmation: 'true', counts: { agent: '1' } },
      revisions: { agentsRevision: '3' },
      extensions: null,
    };
    const { result, notes } = parseLenient(ChangeSet, changeSet, { pathPrefix: 'changeSet.' });
    expect(result.success).toBe(true);
    expect(result.data?.operations[0]).toEqual({ op: 'upsert', targetType: 'agent', target: { agentId: 'a' }, payload: { agent: { id: 'a', flag: 'true', gone: null } } });
    expect(result.data?.revisions).toEqual({ agentsRevision: 3 });
    expect(result.data?.impact).toEqual({ objects: ['agent:a'], requiresConfirmation: true, counts: { agent: 1 } });
    expect(notes).toContain('read "changeSet.operations[0].reason": null as not given');
  });
});

describe('parseLenient: blanks and locators', () => {
  const Locator = z.strictObject({ type: z.enum(['workflow', 'step', 'agent', 'asset']), id: z.string().min(1), workflowId: z.string().min(1).optional() });
  const Args = z.strictObject({
    sessionId: z.string().optional(),
    limit: z.int().min(1).optional(),
    exact: z.boolean().optional(),
    count: z.int(),
    locator: Locator.optional(),
    free: z.unknown(),
  });

  it('reads "null" and "" as not given where an optional number, boolean or object is wanted', () => {
    const { result, notes } = parseLenient(Args, { limit: 'null', exact: '', locator: ' null ', count: 1, free: 1 });
    expect(result.success && result.data).toEqual({ count: 1, free: 1 });
    expect(notes).toEqual(['read "limit": "null" as not given', 'read "exact": "" as not given', 'read "locator": " null " as not given']);
  });

  it('leaves a blank in a required field, and a blank text where a text is wanted, to the schema', () => {
    const required = parseLenient(Args, { count: 'null', free: 1 });
    expect(required.result.success).toBe(false);
    expect(required.result.error?.issues[0]?.path).toEqual(['count']);
    expect(parseLenient(Args, { count: 1, sessionId: '', free: 1 }).result.data).toEqual({ count: 1, sessionId: '', free: 1 });
  });

  it('with blankOptionals (tool arguments) leaves out every optional field sent blank, nested ones too, never free JSON', () => {
    const input = { sessionId: 'null', count: 2, locator: { type: 'step', id: 'x', workflowId: '' }, free: { a: null, b: '' } };
    const { result, notes } = parseLenient(Args, input, { blankOptionals: true });
    expect(result.success && result.data).toEqual({ count: 2, locator: { type: 'step', id: 'x' }, free: { a: null, b: '' } });
    expect(notes).toEqual(['read "sessionId": "null" as not given', 'read "locator.workflowId": "" as not given']);
    expect(parseLenient(Args, { count: 2, free: null }, { blankOptionals: true }).result.data).toEqual({ count: 2, free: null });
  });

  it('reads a locator written as its key as the object the schema wants, only for a type it knows', () => {
    const step = parseLenient(Args, { count: 1, free: 0, locator: 'step:classify' });
    expect(step.result.data?.locator).toEqual({ type: 'step', id: 'classify' });
    expect(step.notes).toEqual(['read "locator": "step:classify" as {"type":"step","id":"classify"}']);
    expect(parseLenient(Args, { count: 1, free: 0, locator: 'step:wf/classify' }).result.data?.locator).toEqual({ type: 'step', id: 'classify', workflowId: 'wf' });
    expect(parseLenient(Args, { count: 1, free: 0, locator: 'asset:assets/a.md' }).result.data?.locator).toEqual({ type: 'asset', id: 'assets/a.md' });
    for (const text of ['graph:wf', 'classify', 'step:', ':x']) expect(parseLenient(Args, { count: 1, free: 0, locator: text }).result.success, text).toBe(false);
  });
});

describe('readObjectKey', () => {
  const known = ['step:triage/classify', 'step:triage/route', 'step:billing/route', 'asset:assets/policies/expense-policy.md', 'agent:auditor'];

  it('takes a full key as it is, even a new one', () => {
    expect(readObjectKey('step:triage/classify', known)).toEqual({ kind: 'exact', key: 'step:triage/classify' });
    expect(readObjectKey('step:triage/new', known)).toEqual({ kind: 'exact', key: 'step:triage/new' });
  });

  it('reads a short step key that names one step', () => {
    expect(readObjectKey('step:classify', known)).toEqual({ kind: 'interpreted', key: 'step:triage/classify', note: 'read step:classify as step:triage/classify' });
  });

  it('lists the candidates of an ambiguous short key instead of choosing', () => {
    expect(readObjectKey('step:route', known)).toEqual({ kind: 'ambiguous', key: 'step:route', candidates: ['step:billing/route', 'step:triage/route'] });
  });

  it('reads an asset path without its folders when one asset ends with it', () => {
    expect(readObjectKey('asset:expense-policy.md', known)).toMatchObject({ kind: 'interpreted', key: 'asset:assets/policies/expense-policy.md' });
    expect(readObjectKey('step:missing', known)).toEqual({ kind: 'unknown', key: 'step:missing' });
  });
});
