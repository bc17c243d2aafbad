import { describe, expect, it } from 'vitest';
import { tokenizeWords, wordChanges, wordDiff } from './cjk-words.ts';

describe('tokenizeWords', () => {
  it('makes each Han, Kana and Hangul character a word, keeps Latin words and numbers whole', () => {
    expect(tokenizeWords('需求评审 v2。')).toEqual(['需', '求', '评', '审', ' ', 'v2', '。']);
    expect(tokenizeWords('ひらがなとカタカナ')).toHaveLength(9);
    expect(tokenizeWords('한국어 review')).toEqual(['한', '국', '어', ' ', 'review']);
    expect(tokenizeWords('Ask the owner, then 确认。')).toEqual(['Ask', ' ', 'the', ' ', 'owner', ',', ' ', 'then', ' ', '确', '认', '。']);
  });

  it('joins back to exactly the input, line breaks, surrogate pairs and combining marks included', () => {
    for (const text of ['', '一\n\n二  三\r\n', '𠀀𠀁 emoji 🎧 ok', 'café cafe\u0301 — “引号”', '# 收集需求\n\n## Goal（目标）\n']) {
      expect(tokenizeWords(text).join('')).toBe(text);
    }
    expect(tokenizeWords('𠀀𠀁')).toEqual(['𠀀', '𠀁']);
    expect(tokenizeWords('a\n\nb')).toEqual(['a', '\n', '\n', 'b']);
  });
});

describe('wordDiff', () => {
  it('highlights only the inserted Chinese characters, not the whole sentence', () => {
    expect(wordDiff('收集需求。', '收集用户需求。')).toEqual([
      { value: '收集', added: false, removed: false },
      { value: '用户', added: true, removed: false },
      { value: '需求。', added: false, removed: false },
    ]);
  });

  it('still compares English by whole words', () => {
    expect(wordDiff('the quick fox', 'the slow fox').filter((p) => p.added || p.removed)).toEqual([
      { value: 'quick', added: false, removed: true },
      { value: 'slow', added: true, removed: false },
    ]);
  });
});

describe('wordChanges', () => {
  it('gives replacement ranges in UTF-16 offsets that slice out exactly the changed characters', () => {
    const a = '评审通过后签发𠀀。';
    const b = '评审不通过时修订𠀀。';
    const changes = wordChanges(a, b);
    expect(changes.map((c) => [a.slice(c.fromA, c.toA), b.slice(c.fromB, c.toB)])).toEqual([
      ['', '不'],
      ['后签发', '时修订'],
    ]);
    expect(changes.at(-1)!.toA).toBe(a.length - '𠀀。'.length);
  });

  it('finds nothing to change in equal texts, and one range for a deletion', () => {
    expect(wordChanges('相同的文本', '相同的文本')).toEqual([]);
    expect(wordChanges('一二三', '一三')).toEqual([{ fromA: 1, toA: 2, fromB: 1, toB: 1 }]);
  });
});
