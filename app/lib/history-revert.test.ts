/** The History page's revert words: the confirmation says what happens, including the later revisions kept. */
import { afterEach, describe, expect, it } from 'vitest';
import { useLocale } from './i18n/i18n.svelte.ts';
import { restoreLabel, restoreQuestion, revertQuestion, revertedNotice, revisionSpan } from './history-revert.ts';

afterEach(() => useLocale('en'));

const KEY = 'step:main/quick-check';

describe('revert confirmation', () => {
  it('names the later revisions an undo keeps, and says nothing is written if they changed the same lines', () => {
    const question = revertQuestion(KEY, [3]);
    expect(question).toContain('Undo only this change to step:main/quick-check');
    expect(question).toContain('later edits of revision 3 are kept');
    expect(question).toContain('nothing is written');
    expect(revertQuestion(KEY, [3, 4, 6])).toContain('later edits of revisions 3–6 are kept');
  });

  it('says a change nothing followed comes back whole, without mentioning later edits', () => {
    const question = revertQuestion(KEY, []);
    expect(question).toContain('content from before this change comes back');
    expect(question).not.toContain('later');
  });

  it('words the explicit restore by what it discards from the file, and that history keeps it', () => {
    expect(restoreLabel([3, 4])).toBe("Restore the file as it was before this change, discarding revisions 3–4's edits to it");
    const question = restoreQuestion(KEY, [3, 4]);
    expect(question).toContain('Discard the edits of revisions 3–4 to step:main/quick-check');
    expect(question).toContain('stay in history');
  });

  it('tells after the fact which edits were kept or discarded', () => {
    expect(revertedNotice(KEY, { revision: 5, mode: 'undo', kept: [4], discarded: [] })).toBe(
      'Undid this change to step:main/quick-check — now at revision 5; the edits of revision 4 were kept.',
    );
    expect(revertedNotice(KEY, { revision: 5, mode: 'restore', kept: [], discarded: [4] })).toContain('the edits of revision 4 are still in history');
    expect(revertedNotice(KEY, { revision: 4, mode: 'undo', kept: [], discarded: [] })).toBe('Reverted step:main/quick-check — now at revision 4.');
  });

  it('has the same words in Chinese', async () => {
    await useLocale('zh');
    expect(revisionSpan([3, 5])).toBe('修订 3–5');
    expect(revertQuestion(KEY, [3])).toBe('只撤销对 step:main/quick-check 的此修改？修订 3 中的后续编辑会保留；如果它们改动了相同的行，则不写入任何内容并提示你。');
    expect(restoreLabel([3])).toBe('把文件恢复为此修改之前的样子，丢弃修订 3 对它的编辑');
  });
});
