/**
 * A tool line in the reader's language: the key and parameters a tool event carries are worded
 * from the catalogue (numbers localised, plural by count), an error by its code's words, and an
 * event from an older log without words keeps its English summary.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useLocale } from '../i18n/i18n.svelte.ts';
import { accepted, event } from './events.fixture.ts';
import { EMPTY_LOG, foldEvents, statusText } from './turn-log.ts';
import { toolWordsText } from './tool-words.ts';

describe('tool lines in the reader’s language', () => {
  afterEach(() => useLocale('en'));

  it('words a request and an answer in Chinese, and the same lines in English on a switch', () => {
    useLocale('zh');
    expect(toolWordsText({ key: 'context', values: {} }, 'the session context')).toBe('会话上下文');
    expect(toolWordsText({ key: 'staged', values: { version: '1', files: 'M step:wf/n1' } }, 'x')).toBe('已暂存版本 1：M step:wf/n1');
    expect(toolWordsText({ key: 'characters', values: { count: 6219 } }, 'x')).toBe('6,219 个字符');
    useLocale('en');
    expect(toolWordsText({ key: 'characters', values: { count: 6219 } }, 'x')).toBe('6,219 characters');
    expect(toolWordsText({ key: 'operations', values: { count: 1, list: 'upsert agent a1' } }, 'x')).toBe('1 operation: upsert agent a1');
    expect(toolWordsText({ key: 'operations', values: { count: 2, list: 'upsert agent a1, delete asset b' } }, 'x')).toBe('2 operations: upsert agent a1, delete asset b');
  });

  it('words a failed call by its code in Chinese and keeps the server’s words in English', () => {
    const failed = { key: 'failed' as const, values: { code: 'STEP_NOT_FOUND', message: 'No step n9.' } };
    expect(toolWordsText(failed, 'x')).toBe('STEP_NOT_FOUND: No step n9.');
    useLocale('zh');
    const text = toolWordsText(failed, 'x');
    expect(text.startsWith('STEP_NOT_FOUND：')).toBe(true);
    expect(text).not.toContain('No step n9.');
    expect(text).toMatch(/[\u4e00-\u9fff]/u);
  });

  it('folds the words into the tool line and the status line, and keeps an older event’s English summary', () => {
    const log = foldEvents(EMPTY_LOG, [
      accepted(1, 'Improve step one'),
      event(2, 'tool.started', { iteration: 1, toolCallId: 'c1', name: 'builder.step.read', summary: 'step wf/n1', words: { key: 'step', values: { workflowId: 'wf', nodeId: 'n1' } } }),
    ]);
    const turn = log.turns.at(-1)!;
    useLocale('zh');
    expect(toolWordsText(turn.tools[0]!.requestWords, turn.tools[0]!.request)).toBe('步骤 wf/n1');
    expect(statusText(turn.phase)).toContain('步骤 wf/n1');
    expect(toolWordsText(undefined, 'step wf/n1')).toBe('step wf/n1');
  });
});
