/**
 * Word-level diff for text in any script: Chinese, Japanese and Korean have no spaces between
 * words, so a whitespace tokenizer sees a whole CJK sentence as one "word" and highlights all of it
 * for a one-character edit. Here each Han, Kana or Hangul character is a word of its own (a
 * dictionary segmenter such as Intl.Segmenter would give different words in Node, workerd and each
 * browser, so a diff would not be stable), runs of other letters and digits stay whole words,
 * every line break, space run and punctuation mark is its own token.
 *
 * `wordChanges(a, b)` has the shape @codemirror/merge's `diffConfig.override` takes (offsets in
 * UTF-16 code units, like every JavaScript string index); `wordDiff` the `{value, added, removed}`
 * parts jsdiff's `diffWordsWithSpace` returns.
 */
import { diffArrays } from 'diff';

/** One character that is a word by itself: Han (with the iteration mark 々), Hiragana, Katakana, Hangul. */
export const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}々〆ー]$/u;

const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;
const SPACE_CHAR = /^[^\S\n]$/u;

type Kind = 'cjk' | 'word' | 'space' | 'newline' | 'other';

function kindOf(char: string): Kind {
  if (char === '\n') return 'newline';
  if (CJK_CHAR.test(char)) return 'cjk';
  if (WORD_CHAR.test(char)) return 'word';
  if (SPACE_CHAR.test(char)) return 'space';
  return 'other';
}

/**
 * The tokens of `text`, which join back to exactly `text`: each CJK character, each line break and
 * each other mark alone; runs of letters/digits and runs of spaces together. Iterates by code point,
 * so a character outside the BMP (𠀀, an emoji) is never split in half.
 */
export function tokenizeWords(text: string): string[] {
  const tokens: string[] = [];
  let run = '';
  let runKind: Kind | null = null;
  for (const char of text) {
    const kind = kindOf(char);
    // A combining mark stays with the character before it, whatever that is.
    const joins = run !== '' && ((kind === runKind && (kind === 'word' || kind === 'space')) || (/^\p{M}$/u.test(char) && runKind !== 'newline'));
    if (joins) {
      run += char;
      continue;
    }
    if (run !== '') tokens.push(run);
    run = char;
    runKind = kind;
  }
  if (run !== '') tokens.push(run);
  return tokens;
}

export interface WordPart {
  value: string;
  added: boolean;
  removed: boolean;
}

/** The diff of `a` and `b` by tokens: common, removed and added parts in order. */
export function wordDiff(a: string, b: string): WordPart[] {
  return diffArrays(tokenizeWords(a), tokenizeWords(b)).map((part) => ({ value: part.value.join(''), added: part.added, removed: part.removed }));
}

/** A changed range: `a.slice(fromA, toA)` became `b.slice(fromB, toB)`. */
export interface WordChange {
  fromA: number;
  toA: number;
  fromB: number;
  toB: number;
}

/** The changed ranges, a removal and the addition right after it joined into one replacement. */
export function wordChanges(a: string, b: string): WordChange[] {
  const changes: WordChange[] = [];
  let posA = 0;
  let posB = 0;
  for (const part of wordDiff(a, b)) {
    const length = part.value.length;
    if (!part.added && !part.removed) {
      posA += length;
      posB += length;
      continue;
    }
    const last = changes.at(-1);
    const open = last && last.toA === posA && last.toB === posB ? last : null;
    const change = open ?? { fromA: posA, toA: posA, fromB: posB, toB: posB };
    if (part.removed) posA += length;
    else posB += length;
    change.toA = posA;
    change.toB = posB;
    if (!open) changes.push(change);
  }
  return changes;
}
