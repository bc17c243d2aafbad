import { describe, expect, it } from 'vitest';
import { FIXTURE_NAMES, loadFixture } from '../../test/fixtures/packages.ts';
import { parseFrontmatter, serializeFrontmatter } from './frontmatter.ts';
import type { FrontmatterResult } from './frontmatter.ts';

function problems(result: FrontmatterResult) {
  return result.ok ? [] : result.problems;
}

describe('parseFrontmatter', () => {
  it('splits data and body, keeping the body byte for byte', () => {
    const result = parseFrontmatter('---\nschemaVersion: "1.1"\nnodeId: a\n---\n\n# Title\r\ntext\n');
    expect(result).toMatchObject({
      ok: true,
      value: { data: { schemaVersion: '1.1', nodeId: 'a' }, body: '\n# Title\r\ntext\n', bodyStartLine: 5, bom: false, eol: '\n' },
    });
  });

  it('allows a UTF-8 BOM and CRLF line ends', () => {
    const result = parseFrontmatter('\uFEFF---\r\na: "1"\r\n---\r\nbody\r\n');
    expect(result).toMatchObject({ ok: true, value: { data: { a: '1' }, body: 'body\r\n', bom: true, eol: '\r\n' } });
  });

  it('takes a closing fence at the end of the file without a newline', () => {
    expect(parseFrontmatter('---\na: 1\n---')).toMatchObject({ ok: true, value: { data: { a: 1 }, body: '' } });
  });

  it('requires the fence at byte 0', () => {
    expect(problems(parseFrontmatter('\n---\na: 1\n---\n'))).toEqual([expect.objectContaining({ kind: 'not-at-start' })]);
    expect(problems(parseFrontmatter('  ---\na: 1\n---\n'))).toEqual([expect.objectContaining({ kind: 'not-at-start' })]);
    expect(problems(parseFrontmatter('# Title\n'))).toEqual([expect.objectContaining({ kind: 'missing' })]);
    expect(problems(parseFrontmatter(''))).toEqual([expect.objectContaining({ kind: 'missing' })]);
  });

  it('reports an unclosed block', () => {
    expect(problems(parseFrontmatter('---\na: 1\n'))).toEqual([expect.objectContaining({ kind: 'unclosed' })]);
  });

  it('reports duplicate keys with the key and the file line, without throwing', () => {
    expect(problems(parseFrontmatter('---\nnodeId: a\ntype: step\nnodeId: b\n---\n'))).toEqual([
      expect.objectContaining({ kind: 'duplicate-key', line: 4, message: 'Duplicate key "nodeId" in the frontmatter (line 4).' }),
    ]);
  });

  it('reports YAML syntax errors with the file line', () => {
    const [problem] = problems(parseFrontmatter('---\na: 1\nb: [1, 2\n---\n'));
    expect(problem).toMatchObject({ kind: 'yaml' });
    expect(problem!.line).toBeGreaterThanOrEqual(3);
  });

  it('refuses a non-mapping or empty frontmatter', () => {
    expect(problems(parseFrontmatter('---\n- a\n---\n'))).toEqual([expect.objectContaining({ kind: 'not-a-mapping' })]);
    expect(problems(parseFrontmatter('---\n---\n'))).toEqual([
      expect.objectContaining({ kind: 'not-a-mapping', message: 'The frontmatter is empty.' }),
    ]);
  });

  it('reads unquoted 1.1 as a number (the schema then asks to quote it)', () => {
    expect(parseFrontmatter('---\nschemaVersion: 1.1\n---\n')).toMatchObject({ ok: true, value: { data: { schemaVersion: 1.1 } } });
  });

  it('stops alias bombs', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, prev] of [['b', 'a'], ['c', 'b'], ['d', 'c'], ['e', 'd']]) {
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    expect(problems(parseFrontmatter(`---\n${lines.join('\n')}\n---\n`))).toEqual([expect.objectContaining({ kind: 'alias-limit' })]);
  });

  it('refuses frontmatter above the size limit', () => {
    const big = `---\nx: "${'a'.repeat(70 * 1024)}"\n---\n`;
    expect(problems(parseFrontmatter(big))).toEqual([expect.objectContaining({ kind: 'too-large' })]);
  });

  it('refuses deep nesting as too-deep, without throwing', () => {
    const deep = [
      '['.repeat(20000) + ']'.repeat(20000),
      `a: ${'['.repeat(100)}1${']'.repeat(100)}`,
      '{a: '.repeat(10000) + '1' + '}'.repeat(10000),
      '- '.repeat(3000) + 'x',
      Array.from({ length: 80 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1',
    ];
    for (const yaml of deep) expect(problems(parseFrontmatter(`---\n${yaml}\n---\n`))).toEqual([expect.objectContaining({ kind: 'too-deep' })]);
  });
});

describe('serializeFrontmatter', () => {
  const cases: Array<Record<string, unknown>> = [
    { schemaVersion: '1.1', nodeId: 'step-01', type: 'step', title: '', inputs: [], transitions: [{ to: 'b', label: 'next', isDefault: true }] },
    { numbery: '1.1', booly: 'true', nully: 'null', yes: 'yes', date: '2026-03-02', octal: '0o17', hex: '0x1f', sci: '1e3' },
    { multi: 'line one\nline two\n', trailing: 'ends with space ', lead: ' leading', colon: 'a: b', hash: 'a # b', dash: '- x', fence: '---' },
    { nested: { deep: { list: [1, 2.5, -3, true, null, { k: 'v' }] } }, empty: {}, emptyList: [] },
    { unicode: '中文 🧩 ä', quote: `it's "quoted"`, backslash: 'a\\b', tab: 'a\tb', cr: 'a\r\nb' },
    { '---': 'key looks like a fence', 'with space': 1, '1.1': 'numeric key' },
  ];

  it.each(cases.map((data, i) => [i, data] as const))('round-trips case %i', (_i, data) => {
    for (const options of [{}, { eol: '\r\n' as const }, { bom: true }]) {
      const body = '\n# Body\r\n\n---\n## Goal\n';
      const text = serializeFrontmatter(data, body, options);
      const parsed = parseFrontmatter(text);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.value.data).toEqual(data);
      expect(parsed.value.body).toBe(body);
    }
  });

  it('round-trips every test package frontmatter and keeps each body', () => {
    for (const name of FIXTURE_NAMES) {
      for (const [path, text] of loadFixture(name)) {
        if (!path.endsWith('.md') || path.startsWith('assets/')) continue;
        const first = parseFrontmatter(text);
        expect(first.ok, path).toBe(true);
        if (!first.ok) continue;
        const again = parseFrontmatter(serializeFrontmatter(first.value.data, first.value.body));
        expect(again.ok && again.value.data, path).toEqual(first.value.data);
        expect(again.ok && again.value.body, path).toBe(first.value.body);
      }
    }
  });

  it('quotes schemaVersion so it stays a string', () => {
    expect(serializeFrontmatter({ schemaVersion: '1.1' }, '')).toBe('---\nschemaVersion: "1.1"\n---\n');
  });
});
