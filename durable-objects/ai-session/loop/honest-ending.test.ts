/** Honest endings for the words of an answer: a staged change said to be applied, and "it is live" with nothing staged. */
import { describe, expect, it } from 'vitest';
import type { SessionMeta } from '../../../shared/ai/session.ts';
import { MAX_SUMMARY_CHARS } from './final-answer.ts';
import { NOT_APPLIED_NOTE, SUGGEST_ONLY_REASON, notAppliedSummary, nothingStaged } from './honest-ending.ts';
import type { TurnRecord } from './turn-store.ts';

const META: SessionMeta = {
  sessionId: 's1',
  projectId: 'p1',
  workflowId: 'wf',
  targetType: 'step',
  targetId: 'classify-issue',
  mode: 'optimize',
  createdBy: 'u1',
  createdAt: '2026-01-01T00:00:00.000Z',
};

function turn(over: Partial<TurnRecord>): TurnRecord {
  return {
    id: 't1',
    status: 'running',
    userId: 'u1',
    userName: 'Ann',
    userRole: 'owner',
    content: 'Cite the policy section.',
    suggestOnly: false,
    iteration: 1,
    repairs: 0,
    formatRetries: 0,
    resumes: 0,
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    prefix: null,
    context: null,
    stagedVersion: null,
    acceptedSeq: 1,
    startedAt: 0,
    updatedAt: 0,
    endedAt: null,
    outcome: null,
    ...over,
  } as TurnRecord;
}

describe('a staged change the answer says was applied', () => {
  it('keeps the summary and puts the English correction under it', () => {
    const said = "I've applied the changes to classify-issue; they're live now.";
    expect(notAppliedSummary(said, said)).toBe(`${said}\n\n${NOT_APPLIED_NOTE.en}`);
    expect(NOT_APPLIED_NOTE.en).toContain('staged for review and not applied');
  });

  it('corrects a Chinese summary in Chinese', () => {
    const said = '已更新步骤的目标，修改已应用，现在已生效。';
    expect(notAppliedSummary(said, said)).toBe(`${said}\n\n${NOT_APPLIED_NOTE.zh}`);
  });

  it('reads the words as the model wrote them, and keeps the corrected summary within the cap', () => {
    const said = `${'The step now cites the policy section. '.repeat(60)}All changes have been applied.`;
    const corrected = notAppliedSummary('shortened', said)!;
    expect(corrected.endsWith(NOT_APPLIED_NOTE.en)).toBe(true);
    const long = notAppliedSummary('x'.repeat(MAX_SUMMARY_CHARS), said)!;
    expect(long.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(long.endsWith(NOT_APPLIED_NOTE.en)).toBe(true);
  });

  it('leaves an honest summary alone, and the correction itself is no claim', () => {
    expect(notAppliedSummary('The change is staged for your review.', "I've staged the change; once you apply it, it will be live.")).toBeNull();
    expect(notAppliedSummary(NOT_APPLIED_NOTE.en, NOT_APPLIED_NOTE.en)).toBeNull();
    expect(notAppliedSummary(NOT_APPLIED_NOTE.zh, NOT_APPLIED_NOTE.zh)).toBeNull();
  });
});

describe('"it is live" with nothing staged', () => {
  const chat = { responseType: 'chat' as const, assistantSummary: 'x' };

  it('is a claim of a change: the nothing-staged repair, asked once as words', () => {
    const unstaged = nothingStaged(turn({}), chat, null, [], META, 'The changes are now live in your workflow.');
    expect(unstaged).toMatchObject({ inWords: true });
    expect(unstaged!.repairLines[0]).toContain('nothing is staged');
    expect(nothingStaged(turn({}), chat, null, [], META, '修改已生效。')).toMatchObject({ inWords: true });
  });

  it('is false in a suggest-only turn too', () => {
    expect(nothingStaged(turn({ suggestOnly: true }), chat, null, [], META, "It's live now.")).toMatchObject({ reason: SUGGEST_ONLY_REASON });
  });

  it('is not asked about when the turn staged something', () => {
    expect(nothingStaged(turn({ stagedVersion: 1 }), chat, null, [], META, "It's live now.")).toBeNull();
  });

  it('is true once a person applied the session\'s change: an answer about it is no claim', () => {
    const said = 'Yes: the change was applied and is live now.';
    expect(nothingStaged(turn({}), chat, null, [], META, said, true)).toBeNull();
    expect(nothingStaged(turn({ suggestOnly: true }), chat, null, [], META, '修改现在已生效。', true)).toBeNull();
    expect(nothingStaged(turn({ suggestOnly: true }), chat, null, [], META, '修改现在已生效。')).toMatchObject({ inWords: true });
    // A claim of a new change is still one.
    expect(nothingStaged(turn({}), chat, null, [], META, "I've updated the step and it is live.", true)).toMatchObject({ inWords: true });
  });
});
