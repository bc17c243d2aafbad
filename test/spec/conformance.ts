/**
 * Spec conformance harness: for a test package and thousands of schema-driven mutations of each
 * of its files, our validator (the single-file validators and the full pipeline, stage 1) must
 * agree with ajv on the published schemas (schemas/bmad-v1.1/) about whether the file is
 * schema-valid. Each package (or part of one) has its own test file so they run in parallel.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadFixture } from '../fixtures/packages.ts';
import type { FixtureName } from '../fixtures/packages.ts';
import {
  packageFromFiles,
  parseFrontmatter,
  serializeFrontmatter,
  validateAgentsJson,
  validateGraph,
  validateManifest,
  validatePackage,
  validateStepFile,
  validateWorkflowMd,
} from '../../shared/bmad/index.ts';
import type { ValidationReport } from '../../shared/bmad/index.ts';
import { mutations } from './mutations.ts';
import { SCHEMAS, referenceVerdict } from './reference-validator.ts';
import type { FileKind } from './reference-validator.ts';

const tally = { variants: 0, schemaValid: 0, schemaInvalid: 0, pipelineRuns: 0 };

export function kindOf(path: string): FileKind | null {
  if (path === 'bmad.json') return 'manifest';
  if (path === 'agents.json') return 'agents';
  if (path.endsWith('workflow.graph.json')) return 'graph';
  if (path.endsWith('workflow.md')) return 'workflow';
  if (/(^|\/)steps\/[^/]+\.md$/u.test(path)) return 'step';
  return null;
}

export const SINGLE_FILE: Record<FileKind, (text: string, filePath: string) => ValidationReport> = {
  manifest: (text, filePath) => validateManifest(text, { filePath }),
  agents: (text, filePath) => validateAgentsJson(text, { filePath }),
  graph: (text, filePath) => validateGraph(text, { filePath }),
  workflow: (text, filePath) => validateWorkflowMd(text, { filePath }),
  step: (text, filePath) => validateStepFile(text, { filePath }),
};

interface Disagreement {
  file: string;
  label: string;
  ajv: boolean;
  singleFile: boolean;
  pipeline: boolean;
  ajvErrors: string[];
  ours: string[];
}

/** Compares one variant text of `path` in `files`; `data` is what ajv judges. */
function compare(files: Map<string, string>, path: string, kind: FileKind, label: string, text: string, data: unknown): Disagreement | null {
  const reference = referenceVerdict(kind, data);
  const single = SINGLE_FILE[kind](text, path);
  const variantFiles = new Map(files);
  variantFiles.set(path, text);
  const report = validatePackage(packageFromFiles(variantFiles));
  const pipelineValid = !(report.schemaFailed && report.issues.some((i) => i.filePath === path));
  tally.variants++;
  tally.pipelineRuns++;
  if (reference.valid) tally.schemaValid++;
  else tally.schemaInvalid++;
  if (reference.valid === !single.schemaFailed && reference.valid === pipelineValid) return null;
  return {
    file: path,
    label,
    ajv: reference.valid,
    singleFile: !single.schemaFailed,
    pipeline: pipelineValid,
    ajvErrors: reference.errors,
    ours: single.issues.map((i) => `${i.code} ${i.pointer ?? ''} ${i.message}`),
  };
}

function baseOf(kind: FileKind, text: string): { data: unknown; body: string } {
  if (kind !== 'workflow' && kind !== 'step') return { data: JSON.parse(text), body: '' };
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) throw new Error('test package frontmatter does not parse');
  return { data: parsed.value.data, body: parsed.value.body };
}

function render(kind: FileKind, data: unknown, body: string): string {
  if (kind !== 'workflow' && kind !== 'step') return JSON.stringify(data, null, 2);
  return serializeFrontmatter(data as Record<string, unknown>, body);
}

/** Frontmatter edits made on the YAML text itself: what people actually type. */
const YAML_TEXT_EDITS: Array<[RegExp, string]> = [
  [/schemaVersion: "1\.1"/u, 'schemaVersion: 1.1'],
  [/schemaVersion: "1\.1"/u, 'schemaVersion: 1.1.0'],
  [/schemaVersion: "1\.1"/u, "schemaVersion: '1.1'"],
  [/schemaVersion: "1\.1"/u, 'schemaVersion: 1.10'],
  [/nodeId: "[^"]+"/u, 'nodeId: 01'],
  [/nodeId: "[^"]+"/u, 'nodeId: step 1'],
  [/nodeId: "[^"]+"/u, 'nodeId: ~'],
  [/type: "[^"]+"/u, 'type: step'],
  [/type: "[^"]+"/u, 'type: Step'],
  [/isDefault: true/u, 'isDefault: yes'],
  [/isDefault: true/u, 'isDefault: True'],
  [/isDefault: true/u, 'isDefault: "true"'],
  [/inputs: \[[^\]]*\]/u, 'inputs:'],
  [/inputs: \[[^\]]*\]/u, 'inputs: [1, 2]'],
  [/title: "[^"]*"/u, 'title: 2026-03-02'],
  [/workflowType: "[^"]+"/u, 'workflowType: ""'],
  [/workflowType: "[^"]+"/u, 'workflowType: 7'],
  [/currentNodeId: "[^"]*"/u, 'currentNodeId: ""'],
  [/currentNodeId: "[^"]*"/u, 'currentNodeId:'],
  [/stepsCompleted: \[\]/u, 'stepsCompleted: {}'],
  [/stepsCompleted: \[\]/u, 'stepsCompleted: [a, 1]'],
  [/decisionLog: \[\]/u, 'decisionLog: [{from: a, to: b, label: c, decidedAt: 2026-03-02T09:30:00Z}]'],
  [/decisionLog: \[\]/u, 'decisionLog: [{from: a, to: b, label: c, decidedAt: "2026-03-02"}]'],
  [/decisionLog: \[\]/u, 'decisionLog: [{from: a, to: b}]'],
  [/decisionLog: \[\]/u, 'decisionLog: [{from: a, to: b, label: c, why: d}]'],
  [/variables: \{\}/u, 'variables: []'],
  [/variables: \{\}/u, 'variables: {a: [1, {b: 2}]}'],
  [/artifacts: \[\]/u, 'artifacts: [x, 1.5]'],
  [/---\n/u, '---\nupdatedAt: 2026-03-02T09:30:00Z\n'],
  [/---\n/u, '---\nupdatedAt: 2026-03-02\n'],
  [/---\n/u, '---\nupdatedAt: ""\n'],
  [/---\n/u, '---\nextra: &a [1, 2]\nmore: *a\n'],
];

/** JSON edits that JSON.stringify cannot produce from a plain object. */
const JSON_TEXT_EDITS: Array<[RegExp, string]> = [
  [/^\{/u, '{"__proto__": {"injected": true},'],
  [/"schemaVersion": "1\.1"/u, '"schemaVersion": 1.1'],
  [/"schemaVersion": "1\.1"/u, '"schemaVersion": "1.1", "schemaVersion": "1.2"'],
  [/"schemaVersion": "1\.1"/u, '"schemaVersion": "1.2", "schemaVersion": "1.1"'],
];

/**
 * Declares the conformance tests of one test package (optionally only the files whose path
 * passes `only`, so a big package can be split across test files) and prints the variant count.
 */
export function describeConformance(
  example: FixtureName,
  part: { name: string; only: (path: string) => boolean } = { name: 'all files', only: () => true },
): void {
  const only = part.only;
  afterAll(() => {
    console.log(
      `spec conformance (${example}, ${part.name}): compared ${tally.variants} file variants with ajv ` +
        `(${tally.schemaValid} schema-valid, ${tally.schemaInvalid} schema-invalid; ${tally.pipelineRuns} full-pipeline runs)`,
    );
  });
  describe(example, () => {
    const files = loadFixture(example);
    const targets = [...files.keys()]
      .filter(only)
      .map((path) => ({ path, kind: kindOf(path) }))
      .filter((t) => t.kind !== null);

    it('every file is valid for ajv and for us, and the package validates with no errors', () => {
      for (const { path, kind } of targets) {
        const { data } = baseOf(kind!, files.get(path)!);
        expect(referenceVerdict(kind!, data), path).toEqual({ valid: true, errors: [] });
        expect(SINGLE_FILE[kind!](files.get(path)!, path).schemaFailed, path).toBe(false);
      }
      expect(validatePackage(packageFromFiles(files)).errors).toEqual([]);
    });

    it.each(targets.map((t) => [t.path, t.kind!] as const))('schema-driven mutations of %s agree with ajv', (path, kind) => {
      const { data, body } = baseOf(kind, files.get(path)!);
      const disagreements: Disagreement[] = [];
      let count = 0;
      for (const variant of mutations(SCHEMAS[kind], data)) {
        const text = render(kind, variant.data, body);
        if (kind === 'workflow' || kind === 'step') {
          // The harness relies on a lossless YAML round trip; make sure it held.
          const back = parseFrontmatter(text);
          if (back.ok) expect(back.value.data, variant.label).toEqual(variant.data);
        }
        const found = compare(files, path, kind, variant.label, text, variant.data);
        if (found) disagreements.push(found);
        count++;
      }
      expect(count).toBeGreaterThan(50);
      expect(disagreements).toEqual([]);
    });

    it('every hand-written text edit applies to at least one file, so none is skipped silently', () => {
      const texts = (markdown: boolean) => targets.filter((t) => (t.kind === 'workflow' || t.kind === 'step') === markdown).map((t) => files.get(t.path)!);
      for (const [edits, markdown] of [[YAML_TEXT_EDITS, true], [JSON_TEXT_EDITS, false]] as const) {
        if (texts(markdown).length === 0) continue;
        const unused = edits.filter(([pattern]) => !texts(markdown).some((text) => pattern.test(text))).map(([pattern, to]) => `${pattern} → ${to}`);
        expect(unused).toEqual([]);
      }
    });

    it.each(targets.map((t) => [t.path, t.kind!] as const))('hand-written text edits of %s agree with ajv', (path, kind) => {
      const original = files.get(path)!;
      const disagreements: Disagreement[] = [];
      const isMarkdown = kind === 'workflow' || kind === 'step';
      const edits = (isMarkdown ? YAML_TEXT_EDITS : JSON_TEXT_EDITS).filter(([pattern]) => pattern.test(original));
      // Every file opens with `{` or `---`, which some edit rewrites: a file no edit reaches is a harness bug.
      expect(edits.length).toBeGreaterThan(0);
      for (const [pattern, replacement] of edits) {
        const text = original.replace(pattern, replacement);
        expect(text, `${pattern}`).not.toBe(original);
        let data: unknown;
        if (isMarkdown) {
          const yamlText = /^---\r?\n([\s\S]*?)^---/mu.exec(text)?.[1] ?? '';
          data = parseYaml(yamlText, { schema: 'core', uniqueKeys: false });
        } else {
          data = JSON.parse(text);
        }
        const found = compare(files, path, kind, `${pattern} → ${replacement}`, text, data);
        if (found) disagreements.push(found);
      }
      expect(disagreements).toEqual([]);
    });
  });
}
