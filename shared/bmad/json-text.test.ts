import { describe, expect, it } from 'vitest';
import { eolOf, jsonFileText, parseJsonText } from './json-text.ts';
import { MAX_JSON_DEPTH } from '../json-depth.ts';

describe('parseJsonText', () => {
  it('parses JSON, with or without a BOM', () => {
    expect(parseJsonText('{"a":1}', 'x.json')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonText('\uFEFF{"a":1}', 'x.json')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('says where the text breaks', () => {
    const result = parseJsonText('{\n  "a": 1,\n  "b": 2,\n}', 'agents.json');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([expect.objectContaining({ code: 'JSON_PARSE_ERROR', filePath: 'agents.json' })]);
    expect(result.issues[0]!.message).toMatch(/^agents\.json is not valid JSON: .+ \(line 4, column 1\)$/u);
  });

  it('reports an empty file', () => {
    expect(parseJsonText('  \n', 'bmad.json')).toMatchObject({ ok: false, issues: [{ code: 'JSON_PARSE_ERROR', message: 'bmad.json is empty.' }] });
  });

  it('refuses files above the size limit', () => {
    expect(parseJsonText(`"${'a'.repeat(100)}"`, 'x.json', 50)).toMatchObject({ ok: false, issues: [{ code: 'FILE_TOO_LARGE' }] });
  });

  it('refuses nesting deeper than any package file needs (what walks the value recurses), and locates the break in deeply nested broken text', () => {
    const deep = parseJsonText(`{"x":${'{"a":'.repeat(40000)}1${'}'.repeat(40000)},"name":"p"}`, 'bmad.json');
    expect(deep).toMatchObject({
      ok: false,
      issues: [{ code: 'JSON_PARSE_ERROR', filePath: 'bmad.json', message: `bmad.json nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.` }],
    });
    const atLimit = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect(parseJsonText(atLimit, 'x.json').ok).toBe(true);

    const broken = parseJsonText('['.repeat(200000) + ']'.repeat(199999), 'x.json');
    expect(broken).toMatchObject({
      ok: false,
      issues: [{ code: 'JSON_PARSE_ERROR', message: 'x.json is not valid JSON: Unexpected end of JSON input (line 1, column 400000)' }],
    });
  });
});

describe('jsonFileText', () => {
  it('writes two-space JSON with a final line break in the line ending the file had', () => {
    expect(eolOf('{\r\n  "a": 1\r\n}\r\n')).toBe('\r\n');
    expect(eolOf('{\n  "a": 1\n}\n')).toBe('\n');
    expect(eolOf('{"a":1}')).toBe('\n');
    expect(eolOf(null)).toBe('\n');
    expect(jsonFileText({ a: [1] }, '\r\n')).toBe('{\r\n  "a": [\r\n    1\r\n  ]\r\n}\r\n');
    expect(jsonFileText({ a: 'x\ny' })).toBe('{\n  "a": "x\\ny"\n}\n');
  });
});
