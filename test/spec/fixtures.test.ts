// The published schemas (schemas/bmad-v1.1/) over the repository's test packages: ajv accepts every
// document of the valid packages and agrees with our stage 1 on every hostile variant.
import { describe, expect, it } from 'vitest';
import { HOSTILE_VARIANTS } from '../fixtures/hostile.ts';
import { FIXTURE_NAMES, loadFixture } from '../fixtures/packages.ts';
import { parseFrontmatter } from '../../shared/bmad/index.ts';
import { kindOf } from './conformance.ts';
import { referenceVerdict } from './reference-validator.ts';

/** ajv's verdict on every schema-covered document of a file map; null = the text has no data to judge. */
function verdicts(files: Map<string, string>): Array<{ path: string; valid: boolean | null }> {
  const out: Array<{ path: string; valid: boolean | null }> = [];
  for (const [path, text] of files) {
    const kind = kindOf(path);
    if (!kind) continue;
    if (kind === 'workflow' || kind === 'step') {
      const parsed = parseFrontmatter(text);
      out.push({ path, valid: parsed.ok ? referenceVerdict(kind, parsed.value.data).valid : null });
    } else {
      out.push({ path, valid: referenceVerdict(kind, JSON.parse(text)).valid });
    }
  }
  return out;
}

describe('published schemas on the test packages', () => {
  it.each(FIXTURE_NAMES)('%s: ajv accepts every document', (name) => {
    const judged = verdicts(loadFixture(name));
    expect(judged.length).toBe(name === 'branching' ? 10 : 19);
    expect(judged.filter((j) => j.valid !== true)).toEqual([]);
  });

  it.each(HOSTILE_VARIANTS.map((v) => [v.name, v] as const))('%s: ajv agrees with our stage 1, or the rule is product-only', (_name, variant) => {
    const judged = verdicts(variant.files);
    const rejected = judged.filter((j) => j.valid === false);
    const unparsable = judged.filter((j) => j.valid === null);
    if (!variant.schemaFailed) {
      // Graph, path and reference rules are beyond the schemas: ajv accepts every document.
      expect([...rejected, ...unparsable]).toEqual([]);
    } else {
      // A schema violation ajv sees too, or a frontmatter block no parser may expand (size, aliases).
      expect(rejected.length + unparsable.length).toBeGreaterThan(0);
    }
  });

  it('the schema-invalid variants are rejected by ajv itself', () => {
    const rejectedBy = (name: string) => verdicts(HOSTILE_VARIANTS.find((v) => v.name === name)!.files).filter((j) => j.valid === false).map((j) => j.path);
    expect(rejectedBy('wrong-schema-version')).toEqual(['agents.json', 'bmad.json']);
    expect(rejectedBy('prototype-key')).toEqual(['agents.json']);
  });
});
