// Finds known secrets in text in the forms a model may echo them: as is, spaced out, base64, URL-encoded
// or as hex; and, for a stream, how much of a text's end could be the start of one. Pure and linear in
// the text (used by redact.ts and stream-redactor.ts).
//
// Why not one big regex per form: "each character of the key, then any separators" backtracks badly
// when the key itself contains a separator (sk-…) and the text is full of them. Instead the text is
// reduced once to a skeleton without separator characters (with a map back to the original), and every
// form is a plain substring search in it; the forms are computed once per secret set.

/** A model spacing a key out puts at most this many separator characters between two of its characters. */
export const MAX_GAP = 32;
/** Shorter secrets (or forms) would match ordinary words; real keys are long. */
export const MIN_SECRET_CHARS = 6;
/** Stands for a run of more than MAX_GAP separators in the skeleton: no form matches across it. */
const BARRIER = '\u0000';

/**
 * Whitespace (as JavaScript's \s), zero-width characters, soft hyphen and dashes: what a model puts
 * between the characters of a key it spells out. A `-` of the key itself (or of url-safe base64) is
 * stripped from the forms too, so skipping dashes in the text is consistent.
 */
export function isSeparator(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code === 0x2d) return true; // -
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0xad ||
    code === 0x1680 ||
    code === 0x180e ||
    (code >= 0x2000 && code <= 0x200d) ||
    (code >= 0x2010 && code <= 0x2015) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x2060 ||
    code === 0x2212 ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function skeletonOf(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (!isSeparator(text.charCodeAt(i))) out += text[i];
  return out;
}

/** ASCII letters lowered, nothing else: keeps one code unit per code unit, so indexes stay aligned. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
}

function bytesToBinary(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return binary;
}

/**
 * The base64 characters that depend only on the secret's bytes, for each of the three alignments the
 * secret can have inside a longer base64 string (standard and url-safe alphabets).
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = btoa(bytesToBinary(padded));
    // Character k covers bits [6k, 6k+6); keep those fully inside the secret's bits [8·offset, 8·(offset+n)).
    const inner = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    // Offset 0 may also be the whole string: its last character and padding are then known too.
    forms.push(inner, ...(offset === 0 ? [encoded, encoded.replace(/=+$/, '')] : []));
  }
  return [...forms, ...forms.map((f) => f.replaceAll('+', '-').replaceAll('/', '_'))];
}

export interface Range {
  start: number;
  end: number;
}

/** One form and its KMP prefix function, to tell how much of it the end of a text already holds. */
interface Form {
  text: string;
  prefix: Int32Array;
}

function form(text: string): Form {
  const prefix = new Int32Array(text.length);
  for (let i = 1, k = 0; i < text.length; i++) {
    while (k > 0 && text[i] !== text[k]) k = prefix[k - 1]!;
    if (text[i] === text[k]) k += 1;
    prefix[i] = k;
  }
  return { text, prefix };
}

/** The longest proper prefix of `f` that `haystack` ends with (linear in f's length). */
function partialAtEnd(haystack: string, f: Form): number {
  let k = 0;
  for (let i = Math.max(0, haystack.length - f.text.length + 1); i < haystack.length; i++) {
    const c = haystack[i];
    while (k > 0 && c !== f.text[k]) k = f.prefix[k - 1]!;
    if (c === f.text[k]) k += 1;
    if (k === f.text.length) k = f.prefix[k - 1]!;
  }
  return k;
}

export interface Scan {
  /** Where a form occurs: sorted, merged ranges of the original text. */
  ranges: Range[];
  /** For a stream: text from here on may be the start of a form that ends in text not yet seen. */
  hold: number;
}

/** Every known secret's echo forms, built once per secret set; `scan` reads a text once per form. */
export class SecretMatcher {
  /** Forms matched exactly (the key spaced out or not; base64). */
  readonly #exact: Form[];
  /** Forms matched with ASCII case folded (URL-encoding and hex). */
  readonly #folded: Form[];

  constructor(secrets: readonly string[]) {
    const exact = new Set<string>();
    const folded = new Set<string>();
    const encoder = new TextEncoder();
    for (const secret of secrets) {
      const bare = skeletonOf(secret);
      if (secret.length < MIN_SECRET_CHARS || bare.length < MIN_SECRET_CHARS || bare.includes(BARRIER)) continue;
      const bytes = encoder.encode(secret);
      exact.add(bare);
      for (const encoded of base64Forms(bytes)) exact.add(skeletonOf(encoded));
      folded.add(foldAscii(skeletonOf(encodeURIComponent(secret))));
      folded.add([...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''));
      folded.add([...bytes].map((b) => b.toString(16).padStart(2, '0')).join(''));
    }
    const long = (text: string) => text.length >= MIN_SECRET_CHARS;
    this.#exact = [...exact].filter(long).map(form);
    this.#folded = [...folded].filter(long).map(form);
  }

  get empty(): boolean {
    return this.#exact.length === 0 && this.#folded.length === 0;
  }

  find(text: string): Range[] {
    return this.scan(text).ranges;
  }

  scan(text: string): Scan {
    if (this.empty) return { ranges: [], hold: text.length };
    // The skeleton: text without separators; a run longer than MAX_GAP leaves a barrier.
    const positions = new Int32Array(text.length + 1);
    const parts: string[] = [];
    let length = 0;
    let run = 0;
    let partStart = 0;
    for (let i = 0; i < text.length; i++) {
      if (isSeparator(text.charCodeAt(i))) {
        if (run === 0 && partStart < i) parts.push(text.slice(partStart, i));
        run += 1;
        if (run === MAX_GAP + 1) {
          parts.push(BARRIER);
          positions[length++] = i;
        }
        partStart = i + 1;
      } else {
        run = 0;
        positions[length++] = i;
      }
    }
    if (partStart < text.length) parts.push(text.slice(partStart));
    const skeleton = parts.join('');
    const ranges: Range[] = [];
    let partial = 0;
    const search = (haystack: string, forms: Form[]) => {
      for (const { text: f } of forms) {
        for (let at = haystack.indexOf(f); at !== -1; at = haystack.indexOf(f, at + f.length)) {
          ranges.push({ start: positions[at]!, end: positions[at + f.length - 1]! + 1 });
        }
      }
      for (const f of forms) partial = Math.max(partial, partialAtEnd(haystack, f));
    };
    search(skeleton, this.#exact);
    if (this.#folded.length > 0) search(foldAscii(skeleton), this.#folded);
    return { ranges: merge(ranges), hold: partial === 0 ? text.length : positions[length - partial]! };
  }
}

function merge(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a.start - b.start);
  const out: Range[] = [];
  for (const range of ranges) {
    const last = out.at(-1);
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else out.push({ ...range });
  }
  return out;
}

/** `text` with each range replaced by `marker`. */
export function replaceRanges(text: string, ranges: readonly Range[], marker: string): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const range of ranges) {
    out += text.slice(at, range.start) + marker;
    at = range.end;
  }
  return out + text.slice(at);
}

let cached: { key: string; matcher: SecretMatcher } | null = null;

/**
 * The matcher of a secret set, built once: a turn redacts many texts with the same key. Only the
 * last set is kept, so a key is not held in memory for longer than its caller holds it anyway.
 */
export function secretMatcher(secrets: readonly string[]): SecretMatcher {
  const key = JSON.stringify(secrets);
  if (cached?.key !== key) cached = { key, matcher: new SecretMatcher(secrets) };
  return cached.matcher;
}
