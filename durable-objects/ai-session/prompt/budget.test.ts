/** The context budget: the 70/30 split, the envelope trimmer's order, and the loop's tool-result trimmer. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../shared/api-error.ts';
import type { ChatMessage } from '../../../shared/llm/types.ts';
import type { ContextEnvelope } from '../tools/context-envelope.ts';
import {
  DEFAULT_CONTEXT_WINDOW,
  TRIMMED_TOOL_RESULT,
  budgetOf,
  contentHash,
  estimateMessagesTokens,
  estimateMessageTokens,
  estimateTokens,
  fitToolMessages,
  trimEnvelope,
} from './budget.ts';
import { envelopeFor, session } from './support-desk.fixture.ts';
import { contextDigestJson } from './layers.ts';

function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('estimateTokens', () => {
  it('counts ASCII at 3.5 characters per token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('a'.repeat(35))).toBe(10);
    expect(estimateTokens('a'.repeat(36))).toBe(11);
  });

  it('counts CJK and other non-ASCII characters as a token each, emoji as two', () => {
    expect(estimateTokens('报销政策')).toBe(4);
    expect(estimateTokens('费用 policy')).toBe(2 + 2);
    expect(estimateTokens('é')).toBe(1);
    expect(estimateTokens('🔎')).toBe(2);
  });

  it('adds a per-message overhead and counts tool-call arguments', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'a'.repeat(35) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'builder_step_read', arguments: '{"nodeId":"x"}' } }],
      },
    ];
    expect(estimateMessagesTokens(messages)).toBe(4 + 10 + 4 + 4 + estimateTokens('builder_step_read{"nodeId":"x"}'));
  });

  it('gives the figures of counting character by character, lone surrogates and astral characters included', () => {
    // The definition: ASCII at 3.5 per token, a BMP character 1, a character beyond the BMP 2.
    const byCharacter = (text: string) => {
      let ascii = 0;
      let other = 0;
      for (const char of text) {
        const code = char.codePointAt(0)!;
        if (code < 0x80) ascii += 1;
        else other += code > 0xffff ? 2 : 1;
      }
      return Math.ceil(ascii / 3.5) + other;
    };
    const samples = ['', 'plain ASCII, with "JSON": [1, 2]', '报销政策 policy', '🔎🧾 emoji', 'a\ud800b', '\udc00', 'x\ud83d', 'é\u0301 \u00a0\u2028', '𠀀𠀁 CJK extension B'];
    for (const text of samples) expect(estimateTokens(text), JSON.stringify(text)).toBe(byCharacter(text));
    expect(estimateTokens('a\ud800b')).toBe(1 + 1);
  });

  it('estimates a frozen message once: the turn store keeps its messages frozen, and each request re-estimates them all', () => {
    let reads = 0;
    const message = Object.freeze(
      Object.defineProperty({ role: 'user' }, 'content', {
        enumerable: true,
        get: () => {
          reads += 1;
          return 'a'.repeat(35);
        },
      }),
    ) as ChatMessage;
    expect(estimateMessageTokens(message)).toBe(4 + 10);
    expect(estimateMessageTokens(message)).toBe(4 + 10);
    expect(estimateMessagesTokens([message, message])).toBe(2 * (4 + 10));
    expect(reads).toBe(1);
    // A message that is not frozen may change, so it is estimated again each time.
    const open: ChatMessage = { role: 'user', content: 'a'.repeat(35) };
    expect(estimateMessageTokens(open)).toBe(14);
    open.content = 'a'.repeat(70);
    expect(estimateMessageTokens(open)).toBe(24);
  });
});

describe('budgetOf', () => {
  it('splits the window 70 % / 30 %', () => {
    expect(budgetOf({ contextWindow: 100_000 })).toEqual({ contextWindow: 100_000, contextBudget: 70_000, responseBudget: 30_000 });
  });

  it('assumes the default window when the model does not say', () => {
    expect(DEFAULT_CONTEXT_WINDOW).toBe(32_768);
    for (const contextWindow of [undefined, null, 0, -5, Number.NaN]) {
      expect(budgetOf({ contextWindow })).toEqual({ contextWindow: 32_768, contextBudget: 22_937, responseBudget: 9_830 });
    }
  });

  it('uses explicit values, giving the other part the rest of the window', () => {
    expect(budgetOf({ contextWindow: 10_000, contextBudget: 6_000, responseBudget: 2_000 })).toEqual({
      contextWindow: 10_000,
      contextBudget: 6_000,
      responseBudget: 2_000,
    });
    expect(budgetOf({ contextWindow: 10_000, responseBudget: 1_000 })).toMatchObject({ contextBudget: 9_000, responseBudget: 1_000 });
    expect(budgetOf({ contextWindow: 10_000, contextBudget: 8_000 })).toMatchObject({ contextBudget: 8_000, responseBudget: 2_000 });
    expect(budgetOf({ contextWindow: 10_000, contextBudget: 50_000 })).toMatchObject({ contextBudget: 10_000, responseBudget: 3_000 });
  });
});

/** A step envelope whose digest is far larger than its target. */
function bigEnvelope(): ContextEnvelope {
  const envelope = envelopeFor(session('step', 'optimize'));
  const nodes = Array.from({ length: 400 }, (_, i) => ({
    nodeId: `node-${String(i).padStart(3, '0')}`,
    type: 'step',
    title: `Step number ${i} of a very long workflow`,
    path: `workflows/ticket-triage/steps/node-${i}.md`,
    hasFile: true,
  }));
  return {
    ...envelope,
    dependency_digest: { ...envelope.dependency_digest, nodes, note: 'x'.repeat(5_000) },
    domain_profile: { industryDomain: 'Finance', targetUsers: '', painPoints: 'p'.repeat(1_500), expectedOutcomes: '', qualityStyle: '' },
  };
}

const tokensOf = (envelope: ContextEnvelope) => estimateTokens(contextDigestJson(envelope));

describe('trimEnvelope', () => {
  it('leaves an envelope that fits alone', () => {
    const envelope = envelopeFor(session('step', 'optimize'));
    const result = trimEnvelope(envelope, { budgetTokens: 100_000, fixedTokens: 3_000 });
    expect(result.envelope).toEqual(envelope);
    expect(result.trimmed).toEqual([]);
    expect(result.estimatedTokens).toBe(3_000 + tokensOf(envelope));
  });

  it('summarises the digest first, largest key first, and never touches the target', () => {
    const envelope = bigEnvelope();
    const before = JSON.stringify(envelope);
    const budgetTokens = tokensOf(envelope) - 1_000;
    const result = trimEnvelope(envelope, { budgetTokens, fixedTokens: 0 });
    expect(JSON.stringify(envelope)).toBe(before);
    expect(result.envelope.target_snapshot).toEqual(envelope.target_snapshot);
    expect(result.trimmed[0]).toMatchObject({ path: 'dependency_digest.nodes', action: 'summarized' });
    expect(result.envelope.dependency_digest.nodes).toEqual({
      trimmed: 'summarized',
      count: 400,
      first: ['node-000', 'node-001', 'node-002', 'node-003', 'node-004'],
    });
    expect(result.estimatedTokens).toBeLessThanOrEqual(budgetTokens);
    for (const entry of result.trimmed) expect(entry.tokensAfter).toBeLessThan(entry.tokensBefore);
  });

  it('then truncates the digest, then reduces the profile, keeping target, session, tools and revisions', () => {
    const envelope = bigEnvelope();
    const floor = tokensOf({ ...envelope, dependency_digest: {}, domain_profile: {} });
    const result = trimEnvelope(envelope, { budgetTokens: floor + 250, fixedTokens: 0 });
    const actions = result.trimmed.map((t) => `${t.action} ${t.path}`);
    expect(actions.slice(0, 2)).toEqual(['summarized dependency_digest.nodes', 'summarized dependency_digest.note']);
    expect(actions).toContain('truncated dependency_digest.nodes');
    expect(actions).toContain('reduced domain_profile.painPoints');
    expect(actions.indexOf('truncated dependency_digest.nodes')).toBeLessThan(actions.indexOf('reduced domain_profile.painPoints'));
    expect(result.envelope.dependency_digest.nodes).toEqual({ trimmed: 'truncated', count: 400 });
    expect(result.envelope.domain_profile).toMatchObject({
      painPoints: { trimmed: 'reduced', chars: 1_500, hash: contentHash('p'.repeat(1_500)) },
    });
    for (const key of ['target_snapshot', 'session_meta', 'tool_capabilities', 'revision_info'] as const) {
      expect(result.envelope[key], key).toEqual(envelope[key]);
    }
    expect(result.estimatedTokens).toBeLessThanOrEqual(floor + 250);
  });

  it('answers AI_CONTEXT_BUDGET_EXCEEDED when even the target cannot fit', () => {
    const envelope = bigEnvelope();
    const targetTokens = estimateTokens(JSON.stringify(envelope.target_snapshot));
    const error = thrown(() => trimEnvelope(envelope, { budgetTokens: targetTokens, fixedTokens: 500 }));
    expect(error.code).toBe('AI_CONTEXT_BUDGET_EXCEEDED');
    expect(error.status).toBe(422);
    expect(error.message).toContain("too large for the AI model's context window");
    expect(error.hints?.join(' ')).toMatch(/larger context window/u);
    expect(error.extra).toMatchObject({ contextBudget: targetTokens, fixedTokens: 500, targetTokens });
  });
});

describe('fitToolMessages', () => {
  const big = (n: number) => JSON.stringify({ ok: true, data: 'd'.repeat(n) });
  const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'builder_step_read', arguments: '{}' } });
  const conversation = (): ChatMessage[] => [
    { role: 'system', content: 's'.repeat(700) },
    { role: 'user', content: 'Improve the step.' },
    { role: 'assistant', content: null, tool_calls: [call('t1')] },
    { role: 'tool', tool_call_id: 't1', content: big(3_500) },
    { role: 'assistant', content: null, tool_calls: [call('t2')] },
    { role: 'tool', tool_call_id: 't2', content: big(3_500) },
    { role: 'assistant', content: null, tool_calls: [call('t3')] },
    { role: 'tool', tool_call_id: 't3', content: big(3_500) },
  ];

  it('changes nothing when the conversation fits', () => {
    const messages = conversation();
    expect(fitToolMessages(messages, 100_000)).toEqual({ messages, trimmed: [] });
  });

  it('stubs the oldest tool results first, leaving the system, the user and the latest results', () => {
    const messages = conversation();
    const total = estimateMessagesTokens(messages);
    const result = fitToolMessages(messages, total - 500);
    expect(result.trimmed.map((t) => t.path)).toEqual(['tool_result.t1']);
    expect(result.messages[3]).toEqual({ role: 'tool', tool_call_id: 't1', content: TRIMMED_TOOL_RESULT });
    expect(result.messages.filter((_, i) => i !== 3)).toEqual(messages.filter((_, i) => i !== 3));
    expect(messages[3]!.content).not.toBe(TRIMMED_TOOL_RESULT);

    const more = fitToolMessages(messages, total - 1_500);
    expect(more.trimmed.map((t) => t.path)).toEqual(['tool_result.t1', 'tool_result.t2']);
    expect(more.messages[7]).toEqual(messages[7]);
    expect(estimateMessagesTokens(more.messages)).toBeLessThanOrEqual(total - 1_500);
  });

  it('refuses with AI_CONTEXT_BUDGET_EXCEEDED when stubbing every older result is not enough', () => {
    const messages = conversation();
    const error = thrown(() => fitToolMessages(messages, 1_200));
    expect(error.code).toBe('AI_CONTEXT_BUDGET_EXCEEDED');
    expect(error.extra?.trimmed).toHaveLength(2);
  });
});
