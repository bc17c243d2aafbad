/**
 * What the session object sends as English sentences, said in Chinese from the codes and values
 * beside them: risk reasons of a real impact, tool-call lines folded from events, layer titles.
 * English readers keep the server's sentences.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { computeImpact } from '../../../shared/ai/change-impact.ts';
import { useLocale } from '../i18n/i18n.svelte.ts';
import { layerTitle, riskText, toolSummaryText, envelopeText } from './detail-words.ts';
import { event, accepted } from './events.fixture.ts';
import { EMPTY_LOG, foldEvents, statusText } from './turn-log.ts';

afterEach(() => useLocale('en'));

const impact = computeImpact(
  [
    { key: 'step:wf/a', before: 'x\n', after: `${'line\n'.repeat(250)}See assets/missing.md\n` },
    { key: 'agent:reviewer', before: '{"id":"reviewer"}', after: null },
  ],
  {
    target: { targetType: 'agent', workflowId: null, targetId: 'reviewer', mode: 'optimize' },
    assetPaths: new Set(),
    agentIds: { before: new Set(['reviewer']), after: new Set() },
    steps: [{ key: 'step:wf/b', agentId: 'reviewer', assets: [] }],
  },
);

const started = event(2, 'tool.started', {
  iteration: 1,
  toolCallId: 'c1',
  name: 'builder.step.read',
  summary: 'step wf/n1',
  words: { code: 'step', params: { workflowId: 'wf', nodeId: 'n1' } },
});
const finished = event(3, 'tool.finished', {
  iteration: 1,
  toolCallId: 'c1',
  name: 'builder.step.read',
  ok: false,
  durationMs: 4,
  code: 'NOT_FOUND',
  summary: 'NOT_FOUND: No such step',
  words: { code: 'failed', params: { code: 'NOT_FOUND' } },
});

describe('the Workbench details in Chinese', () => {
  it('words every risk reason of an impact from its flag, reference and line count', async () => {
    await useLocale('zh');
    const texts = impact.risks.map(riskText);
    expect(texts).toEqual(
      expect.arrayContaining([
        'step:wf/a 不在本会话的目标范围内。',
        'step:wf/a 改动了 252 行。',
        'agent:reviewer 被删除。',
        'step:wf/a 提到了 assets/missing.md，但它不存在。',
        'step:wf/b 指定了智能体 reviewer，而本次修改把它从 agents.json 中删除了。',
      ]),
    );
    expect(texts).toHaveLength(5);
    for (const text of texts) expect(text).not.toMatch(/\b(lies|changes|mentions|names|deleted|which)\b/);
  });

  it('keeps the server’s sentence for an English reader', () => {
    expect(impact.risks.map(riskText)).toEqual(impact.risks.map((r) => r.message));
  });

  it('says a tool line and the status line from the event’s words', async () => {
    await useLocale('zh');
    const running = foldEvents(EMPTY_LOG, [accepted(1, 'x'), started]).turns[0]!;
    expect(statusText(running.phase)).toContain('步骤 wf/n1');
    const done = foldEvents(EMPTY_LOG, [accepted(1, 'x'), started, finished]).turns[0]!;
    expect(toolSummaryText(done.tools[0]!)).toMatch(/^步骤 wf\/n1 → \p{Script=Han}/u);
    expect(toolSummaryText(done.tools[0]!)).not.toContain('No such step');
    await useLocale('en');
    expect(toolSummaryText(done.tools[0]!)).toBe('step wf/n1 → NOT_FOUND: No such step');
  });

  it('titles the prompt layers and the envelope keys by their ids', async () => {
    await useLocale('zh');
    expect(layerTitle('0B', 'Domain Persona')).toBe('领域角色');
    expect(envelopeText('tool_capabilities', '9 tools, apply: no')).toBe('提供的工具，以及能否暂存');
    await useLocale('en');
    expect(layerTitle('0B', 'Domain Persona')).toBe('Domain Persona');
  });
});
