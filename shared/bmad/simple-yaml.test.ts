/**
 * The fast reading of plain frontmatter must be the `yaml` library's reading, or no reading at all:
 * every text it accepts is compared with the library (same data, same key order, no library error),
 * on every frontmatter of the repository's packages and on a seeded fuzz built from the pieces
 * frontmatter is made of, tricky ones included.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { readSimpleYaml } from './simple-yaml.ts';
import { splitFrontmatter } from './frontmatter.ts';

function library(text: string): { ok: true; data: unknown } | { ok: false } {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, schema: 'core', strict: true });
  return doc.errors.length > 0 ? { ok: false } : { ok: true, data: doc.toJS() as unknown };
}

/** Accepted texts read as the library reads them; returns whether the fast path accepted. */
function agrees(text: string): boolean {
  const fast = readSimpleYaml(text);
  if (fast === undefined) return false;
  const lib = library(text);
  expect(lib.ok, `the library refuses a text the fast path read:\n${text}`).toBe(true);
  if (!lib.ok) return true;
  expect(fast, text).toStrictEqual(lib.data);
  expect(JSON.stringify(fast), `key order:\n${text}`).toBe(JSON.stringify(lib.data));
  return true;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => readFileSync(`${e.parentPath}/${e.name}`, 'utf8'));
}

describe('readSimpleYaml', () => {
  it('reads the plain shapes frontmatter is written in', () => {
    const text = [
      'schemaVersion: "1.1"',
      "title: 'It''s a title'",
      'nodeId: review-report',
      'name: 审查报告',
      'url: http://example.com/a#b',
      'lang: C#',
      'count: 12',
      'negative: -3',
      'flag: true',
      'off: FALSE',
      'nothing: null',
      'empty:',
      'inputs: ["artifacts/report.md", \'b\', plain.md, null]',
      'outputs: []',
      'variables: {}',
      '# a comment line',
      '',
      'transitions:',
      '  - to: "approve"',
      '    label: "ok"',
      '    isDefault: true',
      '  - to: end',
      'tags:',
      '  - a',
      '  - "b c"',
      'nested:',
      '  inner:',
      '    deep: x',
      '',
    ].join('\n');
    expect(agrees(text)).toBe(true);
    expect(readSimpleYaml(text)).toMatchObject({
      title: "It's a title",
      url: 'http://example.com/a#b',
      lang: 'C#',
      count: 12,
      off: false,
      empty: null,
      inputs: ['artifacts/report.md', 'b', 'plain.md', null],
      transitions: [{ to: 'approve', label: 'ok', isDefault: true }, { to: 'end' }],
      nested: { inner: { deep: 'x' } },
    });
    expect(agrees(text.replaceAll('\n', '\r\n'))).toBe(true);
  });

  it('declines what it does not read, so the library decides', () => {
    const declined = [
      'a: 1\na: 2\n', // a repeated key: the library reports it
      'a: "x" # comment\n',
      'a: x #comment\n',
      'a: b: c\n',
      'a: 1.5\n',
      'a: 007\n',
      'a: .inf\n',
      'a: ~\n',
      'a: &anchor x\nb: *anchor\n',
      'a: !tag x\n',
      'a: |\n  text\n',
      'a: >\n  text\n',
      'a: {b: 1}\n',
      'a: {} x\n',
      'a: [b c]\n',
      'a: [b, ]\n',
      'a: [[b]]\n',
      'a: plain\n  continued\n',
      '\tA: 1\n',
      'a:\t1\n',
      'a: x\u00a0\n',
      'a: \u2028\n',
      '__proto__: x\n',
      'true: x\n',
      '"quoted": key\n',
      '  indented: top\n',
      'a:\n- same-indent sequence\n',
      'a:\n  - x\n  b: 1\n',
      '- a\n- b\n',
      'a: "\\x41"\n',
      'a: "\\u0041"\n',
      'a: 😀\n',
      'a: trailing \n',
      'a: x\rb: y\n',
      '',
      '# only a comment\n',
    ];
    for (const text of declined) expect(readSimpleYaml(text), JSON.stringify(text)).toBeUndefined();
  });

  it('reads every frontmatter of the repository’s packages as the library does', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const texts = [
      ...markdownFiles(`${root}test/fixtures/packages`),
      ...markdownFiles(`${root}test/fixtures/bmad-method`),
      ...markdownFiles(`${root}scripts/demo-package`),
    ];
    let read = 0;
    let frontmatters = 0;
    for (const text of texts) {
      const split = splitFrontmatter(text);
      if (!split.ok) continue;
      frontmatters++;
      if (agrees(split.yaml)) read++;
    }
    expect(frontmatters).toBeGreaterThan(20);
    // The fast path must carry most real frontmatter (all 77 when written), or it is dead weight.
    expect(read / frontmatters).toBeGreaterThan(0.9);
  });

  it('agrees with the library on a seeded fuzz of 20,000 texts', () => {
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const keys = ['a', 'b', 'nodeId', 'to', 'label', 'x-y', '_k', 'true', 'Null', 'on', 'yes', '__proto__', '1', 'a b', '"q"', 'k:'];
    const values = [
      '"1.1"', '"a\\"b"', '"tab\\there"', '"x\\u0041"', '"\\/"', '"a\\\\"', '"a\\q"', "'s'", "'it''s'", "'a'b'",
      'plain', 'two words', 'a\\b', '"#x"', "'#x'", 'a{b}', 'a[1]', 'x *y', 'x &y', 'x !y', 'x | y', 'x - y', 'a  b', 'a:b', 'a: b', 'a #b', 'a#b', 'C#', 'http://x.y/z', 'x:', 'x,y', 'x]', '[x', 'say "hi"', "it's",
      '-1', '-0', '0', '007', '12', '1.5', '1e3', '+1', '0x1F', '.inf', '.nan', '~', 'true', 'True', 'tRUE', 'FALSE', 'null', 'NULL', 'yes', 'no',
      '[]', '[ ]', '{ }', '{  }', '{ a }', '[a]', '[a, b]', '["a", \'b\', c]', '[a b]', '[a,]', '[,a]', '[a, [b]]', '[true, Null, 3]', '[a] x', '{}', '{a: 1}',
      '中文', '审查: 报告', 'é', 'x\u00a0', '😀', '|', '>', '*a', '&a x', '!t x', '%x', '@x', '`x', '? x', '- x', '-x', ',x', '"unclosed', "'unclosed",
      'trailing ', '', ' ', '#c',
    ];
    const indents = ['', ' ', '  ', '   ', '    '];
    const line = (): string => {
      const roll = random();
      const indent = pick(indents);
      if (roll < 0.55) return `${indent}${pick(keys)}:${pick([' ', '  ', ''])}${pick(values)}`;
      if (roll < 0.7) return `${indent}${pick(keys)}:`;
      if (roll < 0.85) return `${indent}- ${random() < 0.5 ? `${pick(keys)}: ${pick(values)}` : pick(values)}`;
      if (roll < 0.9) return `${indent}# comment`;
      if (roll < 0.95) return '';
      return `${indent}${pick(values)}`;
    };
    // Well-formed trees of the same pieces, mostly the ones the fast path takes alone (so whole texts
    // reach it): mappings, sequences of values and of mappings, nesting, odd indents.
    const goodValues = values.filter((v) => readSimpleYaml(`k: ${v}\n`) !== undefined);
    const goodKeys = keys.filter((k) => readSimpleYaml(`${k}: v\n`) !== undefined);
    const value = () => (random() < 0.9 ? pick(goodValues) : pick(values));
    const key = () => (random() < 0.9 ? pick(goodKeys) : pick(keys));
    const tree = (indent: number, depth: number): string[] => {
      const out: string[] = [];
      const pad = ' '.repeat(indent);
      const used = new Set<string>();
      for (let n = 1 + Math.floor(random() * 4); n > 0; n--) {
        const name = key();
        if (used.has(name)) continue;
        used.add(name);
        const roll = random();
        if (depth < 3 && roll < 0.2) {
          out.push(`${pad}${name}:`, ...tree(indent + pick([1, 2, 4]), depth + 1));
        } else if (depth < 3 && roll < 0.4) {
          const inner = indent + pick([1, 2]);
          out.push(`${pad}${name}:`);
          for (let m = 1 + Math.floor(random() * 3); m > 0; m--) {
            if (random() < 0.5) out.push(`${' '.repeat(inner)}- ${value()}`);
            else {
              const [first, ...rest] = tree(inner + 2, depth + 1);
              out.push(`${' '.repeat(inner)}- ${first!.trimStart()}`, ...rest);
            }
          }
        } else out.push(`${pad}${name}: ${value()}`);
      }
      return out.length > 0 ? out : [`${pad}k: v`];
    };
    let accepted = 0;
    for (let n = 0; n < 20_000; n++) {
      if (n % 2 === 0) {
        const text = tree(0, 0).join(random() < 0.9 ? '\n' : '\r\n') + '\n';
        if (agrees(text)) accepted++;
        continue;
      }
      const count = 1 + Math.floor(random() * 6);
      const lines = Array.from({ length: count }, line);
      // Most texts start at the margin, as frontmatter does; some do not.
      if (random() < 0.9) lines[0] = lines[0]!.trimStart();
      const text = lines.join(random() < 0.9 ? '\n' : '\r\n') + (random() < 0.9 ? '\n' : '');
      if (agrees(text)) accepted++;
    }
    // Enough texts took the fast path for the comparison to mean something.
    expect(accepted).toBeGreaterThan(3_000);
  });
});
