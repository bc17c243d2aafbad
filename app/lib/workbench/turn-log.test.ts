import { describe, expect, it } from 'vitest';
import { accepted, CONTEXT, event, finished, OWNER, usage } from './events.fixture.ts';
import { EMPTY_LOG, failedTitle, foldEvents, formatDuration, formatPersonUsage, formatUsage, isOpen, isRunning, readableStream, stagedText, statusText, type SessionLog } from './turn-log.ts';
import type { SessionEvent } from '../../../shared/ai/events.ts';

const fold = (...events: Parameters<typeof foldEvents>[1]) => foldEvents(EMPTY_LOG, events);
const only = (log: SessionLog) => {
  expect(log.turns).toHaveLength(1);
  return log.turns[0]!;
};

describe('foldEvents: a turn from accepted to its ending', () => {
  it('opens a turn with the message, who asked and a waiting status', () => {
    const turn = only(fold(event(7, 'turn.accepted', { content: 'Tighten step one', suggestOnly: true }, { actor: OWNER })));
    expect(turn).toEqual({
      turnId: 't1',
      content: 'Tighten step one',
      suggestOnly: true,
      requestedBy: 'Olive Owner',
      acceptedSeq: 7,
      phase: { kind: 'waiting' },
      text: '',
      tools: [],
      context: null,
      ending: null,
    });
    expect(isOpen(turn) && isRunning(turn)).toBe(true);
  });

  it('names nobody for a turn the system started', () => {
    expect(only(fold(event(1, 'turn.accepted', { content: 'Resume', suggestOnly: false }, { actor: { kind: 'system' } }))).requestedBy).toBeNull();
  });

  it('follows context, model calls, streamed text and tools through the status line', () => {
    const steps = [
      accepted(1, 'Improve step one'),
      event(2, 'turn.context', CONTEXT),
      event(3, 'llm.requested', { iteration: 1, messages: 3, tools: 5 }),
      event(4, 'assistant.delta', { iteration: 1, text: 'Let me ' }),
      event(5, 'assistant.delta', { iteration: 1, text: 'look.' }),
      event(6, 'llm.completed', { iteration: 1, finishReason: 'tool_calls', toolCalls: 1, usage: usage(50, 5), durationMs: 800, attempts: 1 }),
      event(7, 'tool.started', { iteration: 1, toolCallId: 'c1', name: 'builder.step.read', summary: 'step wf/n1' }),
    ];
    const phases = steps.map((_, i) => only(fold(...steps.slice(0, i + 1))).phase);
    expect(phases).toEqual([
      { kind: 'waiting' },
      { kind: 'preparing' },
      { kind: 'thinking', iteration: 1 },
      { kind: 'writing', iteration: 1 },
      { kind: 'writing', iteration: 1 },
      { kind: 'thinking', iteration: 1 },
      { kind: 'tool', name: 'builder.step.read', request: 'step wf/n1' },
    ]);
    const turn = only(fold(...steps));
    expect(turn.context).toEqual(CONTEXT);
    expect(turn.text).toBe('Let me look.');
    expect(turn.tools).toEqual([
      { toolCallId: 'c1', name: 'builder.step.read', iteration: 1, request: 'step wf/n1', result: null, ok: null, code: null, durationMs: null },
    ]);
  });

  it('completes a tool line in place, keeping what it asked for', () => {
    const turn = only(
      fold(
        accepted(1, 'Read two steps'),
        event(2, 'tool.started', { iteration: 1, toolCallId: 'c1', name: 'builder.step.read', summary: 'step wf/n1' }),
        event(3, 'tool.started', { iteration: 1, toolCallId: 'c2', name: 'builder.step.read', summary: 'step wf/n2' }),
        event(4, 'tool.finished', { iteration: 1, toolCallId: 'c1', name: 'builder.step.read', ok: true, durationMs: 12, code: null, summary: '40 lines' }),
        event(5, 'tool.finished', { iteration: 1, toolCallId: 'c2', name: 'builder.step.read', ok: false, durationMs: 3, code: 'NOT_FOUND', summary: 'no such step' }),
      ),
    );
    expect(turn.tools.map((t) => [t.toolCallId, t.request, t.result, t.ok, t.code, t.durationMs])).toEqual([
      ['c1', 'step wf/n1', '40 lines', true, null, 12],
      ['c2', 'step wf/n2', 'no such step', false, 'NOT_FOUND', 3],
    ]);
    expect(turn.phase).toEqual({ kind: 'thinking', iteration: 1 });
  });

  it('adds a line for a finished tool whose start it never saw', () => {
    const turn = only(
      fold(accepted(1, 'x'), event(2, 'tool.finished', { iteration: 2, toolCallId: 'c9', name: 'builder.context.get', ok: true, durationMs: 1, code: null, summary: 'ok' })),
    );
    expect(turn.tools).toEqual([{ toolCallId: 'c9', name: 'builder.context.get', iteration: 2, request: '', result: 'ok', ok: true, code: null, durationMs: 1 }]);
  });

  it('shows only the newest model call’s text: a new request clears the last one', () => {
    const turn = only(
      fold(
        accepted(1, 'x'),
        event(2, 'llm.requested', { iteration: 1, messages: 2, tools: 1 }),
        event(3, 'assistant.delta', { iteration: 1, text: 'First call.' }),
        event(4, 'llm.requested', { iteration: 2, messages: 4, tools: 1 }),
        event(5, 'assistant.delta', { iteration: 2, text: 'Second.' }),
      ),
    );
    expect(turn.text).toBe('Second.');
  });

  it('shows validation and repair attempts', () => {
    const base = [accepted(1, 'x'), event(2, 'turn.validating', { version: 3, changeSetId: 'cs1' })];
    expect(only(fold(...base)).phase).toEqual({ kind: 'validating', version: 3 });
    const repairing = only(fold(...base, event(3, 'turn.repairing', { attempt: 1, maxRepairs: 2, errorCount: 4 }))).phase;
    expect(repairing).toEqual({ kind: 'repairing', attempt: 1, maxRepairs: 2, errorCount: 4 });
  });

  it('ends with turn.finished: summary, validity and usage; the turn is no longer open', () => {
    const turn = only(fold(accepted(1, 'x'), finished(2, 'Step one now names its inputs.')));
    expect(turn.ending).toEqual({
      type: 'finished',
      summary: 'Step one now names its inputs.',
      staged: null,
      responseType: 'chat',
      valid: null,
      needsManualFix: false,
      version: null,
      usage: usage(100, 20),
    });
    expect(isOpen(turn) || isRunning(turn)).toBe(false);
  });

  it("keeps the model's words and, beside them, the system's list of what it staged", () => {
    const claim = finished(2, 'Updated three steps and the graph.');
    const staged = { ...claim, payload: { ...claim.payload, responseType: 'change', version: 1, valid: true, staged: { files: [{ key: 'step:wf/n1', action: 'M' }], text: 'Staged 1 file: step:wf/n1 (modified).' } } } as SessionEvent;
    const ending = only(fold(accepted(1, 'x'), staged)).ending;
    expect(ending).toMatchObject({ type: 'finished', summary: 'Updated three steps and the graph.', staged: [{ key: 'step:wf/n1', action: 'M' }] });
    // Each viewer words the list itself; in English it reads as the server's sentence did.
    expect(ending?.type === 'finished' && ending.staged ? stagedText(ending.staged) : null).toBe('Staged 1 file: step:wf/n1 (modified).');
  });

  it('ends with turn.failed, keeping the code, message and hints', () => {
    const failed = event(2, 'turn.failed', { code: 'AI_PROVIDER_ERROR', message: 'The provider failed.', hints: ['Try again.'], usage: usage(1, 0), sessionUsage: usage(1, 0) });
    expect(only(fold(accepted(1, 'x'), failed)).ending).toEqual({
      type: 'failed',
      code: 'AI_PROVIDER_ERROR',
      message: 'The provider failed.',
      hints: ['Try again.'],
      noChangesStaged: false,
      usage: usage(1, 0),
    });
  });

  it('ends a turn that only claimed a change as "No change was staged", never as finished', () => {
    const payload = { code: 'AI_NO_CHANGES_STAGED', message: 'No changes staged: the AI said it made changes, but …', hints: [], usage: usage(1, 0), sessionUsage: usage(1, 0) };
    const turn = only(fold(accepted(1, 'x'), event(2, 'turn.failed', { ...payload, outcome: 'no_changes_staged' })));
    expect(turn.ending).toMatchObject({ type: 'failed', code: 'AI_NO_CHANGES_STAGED', noChangesStaged: true });
    expect(turn.ending?.type === 'failed' ? failedTitle(turn.ending) : null).toBe('No change was staged');
    const other = only(fold(accepted(1, 'x'), event(2, 'turn.failed', { ...payload, code: 'AI_PROVIDER_ERROR' })));
    expect(other.ending?.type === 'failed' ? failedTitle(other.ending) : null).toBe('Failed');
  });

  it('ends with turn.stopped, naming who stopped it', () => {
    const stopped = event(2, 'turn.stopped', { stoppedBy: { userId: 'u_ed', name: 'Edith' }, usage: usage(5, 1), sessionUsage: usage(5, 1) });
    const turn = only(fold(accepted(1, 'x'), stopped));
    expect(turn.ending).toEqual({ type: 'stopped', stoppedBy: 'Edith', usage: usage(5, 1) });
    expect(isOpen(turn)).toBe(false);
  });

  it('keeps a paused turn open but not running, until it resumes and finishes', () => {
    const paused = event(2, 'turn.paused', {
      code: 'AI_TOKEN_BUDGET_EXCEEDED',
      message: 'The token budget is used up.',
      tokenBudget: 1000,
      usage: usage(900, 150),
      sessionUsage: usage(900, 150),
    });
    const atPause = only(fold(accepted(1, 'x'), paused));
    expect(atPause.ending).toEqual({ type: 'paused', message: 'The token budget is used up.', tokenBudget: 1000, usage: usage(900, 150) });
    expect([isOpen(atPause), isRunning(atPause)]).toEqual([true, false]);

    const resumed = only(fold(accepted(1, 'x'), paused, event(3, 'turn.resumed', { reason: 'budget', iteration: 2 })));
    expect(resumed.ending).toBeNull();
    expect(resumed.phase).toEqual({ kind: 'resumed', reason: 'budget' });
    expect(isRunning(resumed)).toBe(true);

    expect(only(fold(accepted(1, 'x'), paused, event(3, 'turn.resumed', { reason: 'budget', iteration: 2 }), finished(4, 'Done.'))).ending?.type).toBe('finished');
  });

  it('keeps an ending when a restart resume comes for a turn that is not paused', () => {
    const turn = only(fold(accepted(1, 'x'), finished(2, 'Done.'), event(3, 'turn.resumed', { reason: 'restart', iteration: 1 })));
    expect(turn.ending?.type).toBe('finished');
  });
});

describe('foldEvents: several turns, and events of no turn', () => {
  it('sends each event to its own turn', () => {
    const log = fold(
      accepted(1, 'First', 't1'),
      finished(2, 'One.', 't1'),
      accepted(3, 'Second', 't2'),
      event(4, 'assistant.delta', { iteration: 1, text: 'Two…' }, { turnId: 't2' }),
    );
    expect(log.turns.map((t) => [t.turnId, t.content, t.ending?.type ?? null, t.text])).toEqual([
      ['t1', 'First', 'finished', ''],
      ['t2', 'Second', null, 'Two…'],
    ]);
  });

  it('ignores turn events of a turn it never saw accepted, but counts their seq', () => {
    const log = fold(event(5, 'assistant.delta', { iteration: 1, text: 'orphan' }, { turnId: 'gone' }), finished(6, 'x', 'gone'));
    expect(log).toEqual({ ...EMPTY_LOG, lastSeq: 6 });
  });

  it('marks the session cancelled', () => {
    expect(fold(event(1, 'session.cancelled', {}, { turnId: null })).cancelled).toBe(true);
  });

  it('remembers the last failed apply until a change is applied', () => {
    const failed = fold(event(1, 'apply.failed', { version: 2, code: 'AI_CHANGESET_STALE', message: 'The package changed.' }, { turnId: null }));
    expect(failed.applyFailure).toEqual({ code: 'AI_CHANGESET_STALE', message: 'The package changed.' });
    const applied = foldEvents(failed, [
      event(
        2,
        'change.applied',
        { version: 3, changeSetId: 'cs3', newRevision: { workflowRevision: 4, agentsRevision: 1, assetsRevision: 1 }, warnings: [], files: [] },
        { turnId: null },
      ),
    ]);
    expect(applied.applyFailure).toBeNull();
  });
});

describe('foldEvents: replays and resumes', () => {
  const events = [
    accepted(1, 'x'),
    event(2, 'llm.requested', { iteration: 1, messages: 2, tools: 1 }),
    event(3, 'assistant.delta', { iteration: 1, text: 'Hello ' }),
    event(4, 'assistant.delta', { iteration: 1, text: 'there.' }),
    finished(5, 'Hello there.'),
  ];

  it('skips what it already folded, so a replay that overlaps changes nothing', () => {
    const once = fold(...events);
    expect(foldEvents(once, events)).toEqual(once);
    // Without the skip the text would read "Hello there.Hello there." and a second turn would open.
    expect(once.turns[0]!.text).toBe('Hello there.');
  });

  it('gives the same log whether events come in one batch or in overlapping ones (a resume after a drop)', () => {
    const live = fold(...events.slice(0, 3));
    const resumed = foldEvents(live, events.slice(1));
    expect(resumed).toEqual(fold(...events));
    expect(resumed.lastSeq).toBe(5);
  });

  it('returns a new log and leaves the one it was given as it was', () => {
    const before = fold(...events.slice(0, 3));
    const snapshot = structuredClone(before);
    const after = foldEvents(before, [event(4, 'tool.started', { iteration: 1, toolCallId: 'c1', name: 'n', summary: 's' })]);
    expect(before).toEqual(snapshot);
    expect(after).not.toBe(before);
    expect(after.turns[0]).not.toBe(before.turns[0]);
    expect(after.turns[0]!.tools).toHaveLength(1);
  });
});

describe('statusText', () => {
  it('says what the turn does, in words', () => {
    expect(statusText({ kind: 'waiting' })).toBe('Starting…');
    expect(statusText({ kind: 'preparing' })).toBe('Preparing the context…');
    expect(statusText({ kind: 'thinking', iteration: 2 })).toBe('Thinking…');
    expect(statusText({ kind: 'writing', iteration: 2 })).toBe('Writing…');
    expect(statusText({ kind: 'tool', name: 'builder.step.read', request: 'step wf/n1' })).toBe('Calling builder.step.read “step wf/n1”…');
    expect(statusText({ kind: 'validating', version: 3 })).toBe('Validating the staged changes (version 3)…');
    expect(statusText({ kind: 'resumed', reason: 'restart' })).toBe('Resumed after a server restart…');
    expect(statusText({ kind: 'resumed', reason: 'budget' })).toBe('Resumed…');
  });

  it('counts repair errors in the singular and plural', () => {
    expect(statusText({ kind: 'repairing', attempt: 1, maxRepairs: 2, errorCount: 1 })).toBe('Repairing: attempt 1 of 2 (1 error)…');
    expect(statusText({ kind: 'repairing', attempt: 2, maxRepairs: 2, errorCount: 3 })).toBe('Repairing: attempt 2 of 2 (3 errors)…');
  });
});

describe('formatDuration and formatUsage', () => {
  it('shows milliseconds below a second, then seconds with one decimal', () => {
    expect([formatDuration(0), formatDuration(999), formatDuration(1000), formatDuration(1234), formatDuration(61_060)]).toEqual([
      '0 ms',
      '999 ms',
      '1.0 s',
      '1.2 s',
      '61.1 s',
    ]);
  });

  it('shows the total with tokens in and out, grouped by thousands', () => {
    expect(formatUsage({ promptTokens: 1200, completionTokens: 80, totalTokens: 1280, calls: 2 })).toBe('1,280 tokens (1,200 in, 80 out)');
  });

  it('adds the estimated cost, or says it is unknown for a model without a price', () => {
    const tokens = { promptTokens: 1200, completionTokens: 80, totalTokens: 1280, calls: 2 };
    expect(formatUsage({ ...tokens, estimatedCostUsd: 0.000228 })).toBe('1,280 tokens (1,200 in, 80 out) · ≈ $0.0002');
    expect(formatUsage({ ...tokens, estimatedCostUsd: 0 })).toBe('1,280 tokens (1,200 in, 80 out) · ≈ $0.00');
    expect(formatUsage({ ...tokens, estimatedCostUsd: null })).toBe('1,280 tokens (1,200 in, 80 out) · cost unknown');
  });

  it("shows a person's total in the project, counting turns of unknown cost apart", () => {
    const person = (turns: number, estimatedCostUsd: number, turnsWithUnknownCost: number, name: string | null = 'Edith') => ({
      userId: 'usr_e',
      name,
      turns,
      tokens: { prompt: 1000, completion: 234, total: 1234 },
      estimatedCostUsd,
      turnsWithUnknownCost,
    });
    expect(formatPersonUsage(person(3, 0.0123, 0), false)).toBe('Edith 1,234 tokens · ≈ $0.0123');
    expect(formatPersonUsage(person(3, 0.0123, 2), true)).toBe('You 1,234 tokens · ≈ $0.0123 (+ 2 turns of unknown cost)');
    expect(formatPersonUsage(person(2, 0, 2, null), false)).toBe('A former member 1,234 tokens · cost unknown');
  });
});

describe('readableStream', () => {
  it('shows plain text as it came', () => {
    expect(readableStream('Step one reads the story.')).toBe('Step one reads the story.');
  });

  it('shows only the summary of the JSON answer, as it grows, never the change set', () => {
    const answer = '{"responseType":"change","assistantSummary":"Renamed the step.","changeSet":{"files":[{"content":"SECRET FILE BODY"}]}}';
    expect(readableStream(answer)).toBe('Renamed the step.');
    expect(readableStream(answer.slice(0, answer.indexOf('step.')))).toBe('Renamed the ');
    expect(readableStream('{"responseType":"chat",')).toBe('');
    expect(readableStream(answer)).not.toContain('SECRET');
  });

  it('never shows reasoning left in the content, closed or still streaming', () => {
    expect(readableStream('<think>Which step? The second')).toBe('');
    expect(readableStream('<think>Which step? {maybe}</think>\nThe step reads well.')).toBe('The step reads well.');
    expect(readableStream('<think>x</think>{"responseType":"chat","assistantSummary":"Fine as it is."}')).toBe('Fine as it is.');
  });

  it('shows the sentence before a contract and then its summary, never the object', () => {
    const answer = 'Here is the change:\n```json\n{"responseType":"change","assistantSummary":"Renamed it.","changeSet":{"files":[{"content":"SECRET"}]}}\n```';
    expect(readableStream(answer)).toBe('Here is the change:\n\nRenamed it.');
    expect(readableStream(answer.slice(0, answer.indexOf('"assistantSummary"')))).toBe('Here is the change:');
    expect(readableStream('Use a front matter like {"title": "x"}.')).toBe('Use a front matter like {"title": "x"}.');
  });

  it('reads a fenced answer and the JSON escapes, dropping an escape cut in half', () => {
    expect(readableStream('```json\n{"assistantSummary": "Line one\\nsaid \\"hi\\""}\n```')).toBe('Line one\nsaid "hi"');
    expect(readableStream('{"assistantSummary":"caf\\u00e9 and \\')).toBe('café and ');
    expect(readableStream('{"assistantSummary":"caf\\u00')).toBe('caf');
  });
});
