import { describe, expect, it } from 'vitest';
import { ThinkingFilter, splitThinking, withoutThinking } from './thinking.ts';

/** `content` streamed in two pieces cut at `at`: everything released while streaming, then at the end. */
function streamed(content: string, at: number) {
  const filter = new ThinkingFilter();
  const first = filter.push(content.slice(0, at));
  const second = filter.push(content.slice(at));
  const end = filter.end();
  return { live: first.text + second.text, text: first.text + second.text + end.text, thinking: first.thinking + second.thinking + end.thinking };
}

describe('ThinkingFilter', () => {
  const cases: Array<[string, string, string, string]> = [
    ['a <think> block, then the answer', '<think>Which step? {maybe}</think>\n\nThe step reads well.', 'The step reads well.', 'Which step? {maybe}'],
    ['an orphan </think> (the template opened the block)', 'The user wants the step read.\n</think>\n{"responseType":"chat","assistantSummary":"Fine."}', '{"responseType":"chat","assistantSummary":"Fine."}', 'The user wants the step read.\n'],
    ['an unclosed block', '  <think>Still thinking about it', '', 'Still thinking about it'],
    ['no reasoning at all, prose', 'The step reads well; nothing to change.', 'The step reads well; nothing to change.', ''],
    ['no reasoning at all, JSON', '{"responseType":"chat","assistantSummary":"a </think> in the text"}', '{"responseType":"chat","assistantSummary":"a </think> in the text"}', ''],
  ];

  it.each(cases)('splits %s at every character boundary the same way', (_, content, text, thinking) => {
    expect(splitThinking(content)).toEqual({ text, thinking });
    for (let at = 0; at <= content.length; at++) expect(streamed(content, at), `cut at ${at}`).toMatchObject({ text, thinking });
  });

  it('streams what follows a closed block and a JSON answer live; holds prose until the response shows what it was', () => {
    const filter = new ThinkingFilter();
    expect(filter.push('<thi')).toEqual({ text: '', thinking: '' });
    expect(filter.push('nk>plan</th')).toEqual({ text: '', thinking: 'plan' });
    expect(filter.push('ink> {"a"')).toEqual({ text: '{"a"', thinking: '' });
    const prose = new ThinkingFilter();
    expect(prose.push('Okay, the user wants')).toEqual({ text: '', thinking: '' });
    expect(prose.push(' a shorter step.')).toEqual({ text: '', thinking: '' });
    expect(prose.end()).toEqual({ text: 'Okay, the user wants a shorter step.', thinking: '' });
    // One character at a time.
    const slow = new ThinkingFilter();
    let live = '';
    for (const ch of 'Reasoning here</think>Answer.') live += slow.push(ch).text;
    expect(live + slow.end().text).toBe('Answer.');
  });

  it('withoutThinking keeps content without reasoning as it is, leading spaces included', () => {
    expect(withoutThinking('  plain text')).toBe('  plain text');
    expect(withoutThinking('<thinking>is not the tag</thinking>')).toBe('<thinking>is not the tag</thinking>');
  });
});
