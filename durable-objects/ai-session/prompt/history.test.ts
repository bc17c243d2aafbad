/** The history window: the latest six messages raw, older ones in one capped summary message. */
import { describe, expect, it } from 'vitest';
import { NO_ANSWER, SUMMARY_HEADING, SUMMARY_ITEM_CHARS, SUMMARY_MAX_CHARS, alternating, historyWindow } from './history.ts';
import type { HistoryMessage } from './history.ts';

function conversation(count: number, content = (i: number) => `message ${i}`): HistoryMessage[] {
  return Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: content(i) }));
}

describe('historyWindow', () => {
  it('sends up to six messages as they are, without a summary', () => {
    for (const count of [0, 1, 6]) {
      const messages = conversation(count);
      expect(historyWindow(messages)).toEqual({ messages, rawMessages: count, summarizedMessages: 0 });
    }
  });

  it('sends 9 messages as one summary of the 3 oldest and the 6 latest', () => {
    const messages = conversation(9);
    const window = historyWindow(messages);
    expect(window.rawMessages).toBe(6);
    expect(window.summarizedMessages).toBe(3);
    expect(window.messages).toHaveLength(7);
    expect(window.messages.slice(1)).toEqual(messages.slice(3));
    const summary = window.messages[0]!;
    expect(summary.role).toBe('user');
    expect(summary.content).toBe(
      [SUMMARY_HEADING, '- User asked: message 0', '- Assistant answered: message 1', '- User asked: message 2'].join('\n'),
    );
  });

  it('cuts each older message to about 200 characters on one line', () => {
    const messages = conversation(7, (i) => (i === 0 ? `line one\n\nline two ${'x'.repeat(500)}` : `m${i}`));
    const summary = historyWindow(messages).messages[0]!.content as string;
    const item = summary.split('\n')[1]!;
    expect(item.startsWith('- User asked: line one line two x')).toBe(true);
    expect(item.endsWith('…')).toBe(true);
    expect(item.length).toBeLessThanOrEqual('- User asked: '.length + SUMMARY_ITEM_CHARS);
  });

  it('caps the summary, keeping the newest older messages and saying how many were left out', () => {
    const messages = conversation(60, (i) => `request ${i} ${'y'.repeat(300)}`);
    const window = historyWindow(messages);
    // The summary opens the first raw request (a blank line between them).
    const summary = (window.messages[0]!.content as string).split('\n\n')[0]!;
    expect(summary.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);
    expect(window.summarizedMessages).toBe(54);
    expect(summary).toMatch(/^- \(\d+ earlier messages left out\)$/mu);
    expect(summary).toContain('request 53 ');
    expect(summary).not.toContain('request 0 ');
  });

  it('takes another raw size', () => {
    const window = historyWindow(conversation(5), { raw: 2 });
    expect(window).toMatchObject({ rawMessages: 2, summarizedMessages: 3 });
    expect(window.messages).toHaveLength(3);
    expect(historyWindow(conversation(3), { raw: 0 })).toMatchObject({ rawMessages: 0, summarizedMessages: 3 });
  });
});

// Chat templates of Mistral, Gemma and Llama 2 refuse two user messages in a row.
describe('alternating roles', () => {
  it('answers a request that got no answer (a failed turn) with a note, and joins answers in a row', () => {
    const messages: HistoryMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'user', content: 'second, after the first failed' },
      { role: 'assistant', content: 'done' },
      { role: 'assistant', content: 'and more' },
      { role: 'user', content: 'third, which failed too' },
    ];
    expect(alternating(messages)).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: NO_ANSWER },
      { role: 'user', content: 'second, after the first failed' },
      { role: 'assistant', content: 'done\n\nand more' },
      { role: 'user', content: 'third, which failed too' },
      // The current request comes next.
      { role: 'assistant', content: NO_ANSWER },
    ]);
    expect(alternating([])).toEqual([]);
  });

  it('opens the first raw request with the summary instead of putting a user message before it', () => {
    const window = historyWindow(conversation(8));
    expect(window.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(window.messages[0]!.content).toBe([SUMMARY_HEADING, '- User asked: message 0', '- Assistant answered: message 1'].join('\n') + '\n\nmessage 2');
  });
});
