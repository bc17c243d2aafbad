/** preparePrompt end to end over the support-desk test package, and the context summary it reports. */
import { describe, expect, it } from 'vitest';
import { ContextSummary, PROMPT_LAYER_IDS } from '../../../shared/ai/turn.ts';
import { ApiError } from '../../../shared/api-error.ts';
import { estimateMessagesTokens } from './budget.ts';
import { renderSystemPrompt } from './composer.ts';
import { ALL_TOOLS, EC, EMPTY_PROFILE, POLICY, READ_TOOLS_ONLY, envelopeFor, supportDesk, session } from './support-desk.fixture.ts';
import type { HistoryMessage } from './history.ts';
import { preparePrompt } from './prepare.ts';
import type { PreparePromptInput } from './prepare.ts';

const CLASSIFY_ISSUE_CHARS = supportDesk.workflows.find((w) => w.id === EC)!.steps.find((s) => s.nodeId === 'classify-issue')!.markdown.length;

const ENVELOPE_KEYS = ['session_meta', 'domain_profile', 'normative_baseline', 'target_snapshot', 'dependency_digest', 'tool_capabilities', 'revision_info'];

function stepInput(overrides: Partial<PreparePromptInput> = {}): PreparePromptInput {
  const meta = session('step', 'optimize');
  return {
    session: meta,
    envelope: envelopeFor(meta),
    domainProfile: EMPTY_PROFILE,
    pkg: supportDesk,
    history: [],
    userMessage: 'Make the instructions of this step clearer.',
    tools: ALL_TOOLS,
    suggestOnly: false,
    contextWindow: 32_768,
    ...overrides,
  };
}

const history = (count: number, size = 20): HistoryMessage[] =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `turn ${i} ${'h'.repeat(size)}` }));

describe('preparePrompt', () => {
  it('builds the messages of a step turn: the system prompt first, the user message last', () => {
    const prepared = preparePrompt(stepInput({ history: history(8) }));
    const { messages, layers, summary, budget } = prepared;
    expect(messages[0]).toEqual({ role: 'system', content: renderSystemPrompt(layers) });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Make the instructions of this step clearer.' });
    // system + the summary of 2 opening the first of 6 raw + user, user and assistant alternating
    expect(messages).toHaveLength(8);
    expect(messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(layers.map((l) => l.id)).toEqual([...PROMPT_LAYER_IDS]);
    expect(budget).toEqual({ contextWindow: 32_768, contextBudget: 22_937, responseBudget: 9_830 });
    expect(messages[0]!.content).toContain('classify-issue');
    expect(messages[0]!.content).toContain('assets/policies/support-policy.md');
    expect(messages[0]!.content).not.toContain(POLICY.split('\n')[2]!);

    expect(ContextSummary.parse(summary)).toEqual(summary);
    expect(summary.layers).toHaveLength(8);
    expect(summary.layers.map((l) => l.chars)).toEqual(layers.map((l) => l.text.length));
    expect(Object.keys(summary.envelope)).toEqual(ENVELOPE_KEYS);
    expect(summary.envelope).toEqual({
      session_meta: `step classify-issue in workflow ${EC}, optimize mode`,
      domain_profile: 'not set',
      normative_baseline: '.bmad 1.1, 6 rules',
      target_snapshot: `step classify-issue: ${CLASSIFY_ISSUE_CHARS} chars of markdown, frontmatter`,
      dependency_digest: 'graph node, 2 incoming edges, 1 outgoing edge, 0 variable keys, 1 asset path, 1 agent',
      tool_capabilities: '9 tools, apply: no',
      revision_info: 'baseline revisions workflow 12, agents 4, assets 7; 0 staged objects',
    });
    expect(summary.persona.source).toBe('workflow_signals');
    expect(summary.history).toEqual({ rawMessages: 6, summarizedMessages: 2 });
    expect(summary.budget.estimatedTokens).toBe(estimateMessagesTokens(messages));
    expect(summary.budget.trimmed).toEqual([]);
    expect(summary.tools).toEqual([...ALL_TOOLS]);
    expect(summary.suggestOnly).toBe(false);
  });

  it('offers only the tools of the turn, and in suggest-only mode forbids staging', () => {
    const { messages, summary } = preparePrompt(stepInput({ tools: READ_TOOLS_ONLY, suggestOnly: true }));
    const system = messages[0]!.content as string;
    expect(system).toContain('Suggest-only mode');
    expect(system).toContain('"tool_capabilities":{"tools":["builder.context.get"');
    expect(system).toContain('"apply":false,"suggestOnly":true');
    expect(summary.envelope.tool_capabilities).toBe('6 tools, apply: no, suggest-only');
    expect(summary.suggestOnly).toBe(true);
  });

  it('trims the digest to fit a small window and reports it, keeping the target', () => {
    const meta = session('workflow', 'optimize');
    const envelope = envelopeFor(meta);
    const roomy = preparePrompt(stepInput({ session: meta, envelope }));
    const window = Math.ceil((roomy.summary.budget.estimatedTokens - 150) / 0.7);
    const tight = preparePrompt(stepInput({ session: meta, envelope, contextWindow: window }));
    expect(tight.summary.budget.trimmed.length).toBeGreaterThan(0);
    expect(tight.summary.budget.trimmed[0]!.path).toMatch(/^dependency_digest\./u);
    expect(tight.summary.budget.estimatedTokens).toBeLessThanOrEqual(tight.budget.contextBudget);
    expect(tight.messages[0]!.content).toContain(JSON.stringify(envelope.target_snapshot));
    expect(tight.summary.envelope.dependency_digest).toMatch(/summarized|truncated/u);
  });

  it('gives up raw history before failing, and fails with AI_CONTEXT_BUDGET_EXCEEDED when nothing helps', () => {
    const long = history(6, 3_000);
    const base = preparePrompt(stepInput()).summary.budget.estimatedTokens;
    const fitted = preparePrompt(stepInput({ history: long, contextWindow: Math.ceil((base + 1_200) / 0.7) }));
    expect(fitted.summary.history.rawMessages).toBeLessThan(6);
    expect(fitted.summary.budget.trimmed.some((t) => t.path === 'history')).toBe(true);

    let error: unknown;
    try {
      preparePrompt(stepInput({ contextWindow: 2_000 }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('AI_CONTEXT_BUDGET_EXCEEDED');
  });

  it('counts reserved tokens (tool definitions) against the budget', () => {
    const plain = preparePrompt(stepInput());
    const reserved = preparePrompt(stepInput({ reservedTokens: 1_000 }));
    expect(reserved.summary.budget.estimatedTokens).toBe(plain.summary.budget.estimatedTokens + 1_000);
  });
});
