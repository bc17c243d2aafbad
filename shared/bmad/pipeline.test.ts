import { describe, expect, it } from 'vitest';
import { loadExample } from '../../test/spec/examples.ts';
import type { ValidationIssue } from './issues.ts';
import { packageFromFiles } from './package-files.ts';
import type { BmadPackage } from './package.ts';
import { validatePackage } from './pipeline.ts';
import type { ValidationStage } from './stage.ts';

type Files = Map<string, string>;

function validate(files: Files, edit: (files: Files) => void = () => {}) {
  const copy = new Map(files);
  edit(copy);
  return validatePackage(packageFromFiles(copy));
}

function editJson(files: Files, path: string, change: (data: any) => void) {
  const data = JSON.parse(files.get(path)!);
  change(data);
  files.set(path, JSON.stringify(data, null, 2));
}

function editText(files: Files, path: string, from: string | RegExp, to: string) {
  const text = files.get(path)!;
  const next = text.replace(from, to);
  if (next === text) throw new Error(`no change in ${path}`);
  files.set(path, next);
}

const where = (issues: ValidationIssue[]) => issues.map((i) => [i.severity, i.code, i.filePath, i.pointer]);

const hello = loadExample('hello-branch');
const expense = loadExample('expense-ops');
const EC = 'workflows/expense-compliance';

describe('validatePackage on the examples', () => {
  it.each([
    ['hello-branch', hello],
    ['expense-ops', expense],
  ])('%s is valid with no issues at all', (_name, files) => {
    expect(validate(files)).toEqual({ valid: true, schemaFailed: false, issues: [], errors: [], warnings: [] });
  });
});

describe('stage 1: parse and shape', () => {
  it('reports every broken file, then stops before the rule stages', () => {
    const report = validate(hello, (f) => {
      editText(f, 'agents.json', '"agents": [', '"agents": [,');
      editText(f, 'steps/end-99.md', 'schemaVersion: "1.1"', 'schemaVersion: 1.1');
      editText(f, 'steps/step-01-intake.md', '## Goal', '## Aim'); // a stage-2 problem: not reported
      editJson(f, 'workflow.graph.json', (g) => {
        g.nodes[1].type = 'switch';
        g.edges[0].weight = 1;
      });
    });
    expect(report.valid).toBe(false);
    expect(report.schemaFailed).toBe(true);
    expect(where(report.issues)).toEqual([
      ['error', 'JSON_PARSE_ERROR', 'agents.json', undefined],
      ['error', 'SCHEMA_ENUM', 'workflow.graph.json', '/nodes/1/type'],
      ['error', 'SCHEMA_UNKNOWN_FIELD', 'workflow.graph.json', '/edges/0/weight'],
      ['error', 'SCHEMA_TYPE', 'steps/end-99.md', '/schemaVersion'],
    ]);
    expect(report.errors).toHaveLength(4);
    expect(report.issues[0]!.message).toBe(
      'agents.json is not valid JSON: Unexpected character "," (line 3, column 14)',
    );
  });

  it('reports missing files', () => {
    const report = validate(hello, (f) => {
      f.delete('bmad.json');
      f.delete('agents.json');
      f.delete('workflow.graph.json');
    });
    expect(where(report.issues)).toEqual([
      ['error', 'FILE_MISSING', 'bmad.json', undefined],
      ['error', 'FILE_MISSING', 'agents.json', undefined],
      ['error', 'FILE_MISSING', 'workflow.graph.json', undefined],
    ]);
  });

  it('reports a package without workflows', () => {
    const pkg: BmadPackage = { ...packageFromFiles(hello), workflows: [] };
    expect(where(validatePackage(pkg).issues)).toEqual([['error', 'PKG_NO_WORKFLOW', 'bmad.json', undefined]]);
  });

  it('reports frontmatter problems with the STEP_* codes', () => {
    const report = validate(hello, (f) => {
      f.set('steps/end-99.md', `\n${f.get('steps/end-99.md')!}`);
      editText(f, 'steps/step-01-intake.md', 'type: "step"', 'type: "step"\nnodeId: "again"');
    });
    expect(where(report.issues)).toEqual([
      ['error', 'STEP_INVALID_FRONTMATTER', 'steps/step-01-intake.md', undefined],
      ['error', 'STEP_MISSING_FRONTMATTER', 'steps/end-99.md', undefined],
    ]);
  });
});

describe('stage 2: BMAD rules', () => {
  it('checks that the manifest entry points into the package', () => {
    const report = validate(expense, (f) => editJson(f, 'bmad.json', (m) => (m.entry.graph = `${EC}/graph.json`)));
    expect(where(report.errors)).toEqual([['error', 'MANIFEST_ENTRY_NOT_FOUND', 'bmad.json', '/entry/graph']]);
  });

  it('checks agent ids are unique', () => {
    const report = validate(hello, (f) => editJson(f, 'agents.json', (a) => (a.agents[2].id = 'pm')));
    expect(where(report.errors)).toContainEqual(['error', 'AGENT_DUPLICATE_ID', 'agents.json', '/agents/2/id']);
  });

  it('checks workflow ids are unique', () => {
    const report = validate(expense, (f) => editJson(f, 'bmad.json', (m) => (m.workflows[1].id = 'expense-compliance')));
    expect(where(report.errors)).toContainEqual(['error', 'WORKFLOW_DUPLICATE_ID', 'bmad.json', '/workflows/1/id']);
  });

  it('runs the graph rules on every workflow', () => {
    const report = validate(expense, (f) =>
      editJson(f, `${EC}/workflow.graph.json`, (g) => {
        g.nodes[2].type = 'step'; // decide-complete: its loop loses its decision
      }),
    );
    expect(where(report.errors)).toEqual([
      ['error', 'GRAPH_CYCLE_MISSING_DECISION', `${EC}/workflow.graph.json`, '/nodes/1'],
    ]);
    expect(where(report.warnings)).toEqual([['warning', 'STEP_TYPE_MISMATCH', `${EC}/steps/decide-complete.md`, '/type']]);
  });

  it('checks step bodies', () => {
    const report = validate(hello, (f) => {
      editText(f, 'steps/end-99.md', '## Goal', '## Purpose');
      editText(f, 'steps/step-01-intake.md', /## Instructions[\s\S]*?## Completion/u, '## Instructions\n\n## Completion');
    });
    expect(where(report.issues)).toEqual([
      ['warning', 'STEP_EMPTY_SECTION', 'steps/step-01-intake.md', undefined],
      ['error', 'STEP_MISSING_GOAL', 'steps/end-99.md', undefined],
    ]);
  });

  it('warns on broken Steps Index links and unknown state nodes', () => {
    const report = validate(expense, (f) => {
      editText(f, `${EC}/workflow.md`, '(steps/end.md)', '(steps/finish.md)');
      editText(f, `${EC}/workflow.md`, 'currentNodeId: "collect-report"', 'currentNodeId: "start"');
    });
    expect(report.valid).toBe(true);
    expect(where(report.warnings)).toEqual([
      ['warning', 'WORKFLOW_STEPS_INDEX_BROKEN_LINK', `${EC}/workflow.md`, undefined],
      ['warning', 'WORKFLOW_STATE_UNKNOWN_NODE', `${EC}/workflow.md`, '/currentNodeId'],
    ]);
    expect(report.warnings[0]!.message).toBe(
      `Steps Index link "steps/finish.md" (line 27) points at ${EC}/steps/finish.md, which does not exist.`,
    );
  });
});

describe('stage 3: reference integrity', () => {
  it('requires every node to have its step file, with a hint for workflow-relative paths', () => {
    const report = validate(expense, (f) =>
      editJson(f, `${EC}/workflow.graph.json`, (g) => (g.nodes[8].file = 'steps/end.md')),
    );
    expect(where(report.issues)).toEqual([
      ['error', 'STEP_FILE_MISSING', `${EC}/workflow.graph.json`, '/nodes/8/file'],
      ['warning', 'STEP_ORPHAN_FILE', `${EC}/steps/end.md`, undefined],
    ]);
    expect(report.errors[0]!.hint).toBe(`node.file is relative to the package root: use "${EC}/steps/end.md".`);
  });

  it("requires the step's nodeId to be the node's id", () => {
    const report = validate(hello, (f) => editText(f, 'steps/end-99.md', 'nodeId: "end-99"', 'nodeId: "end-100"'));
    expect(where(report.issues)).toEqual([['error', 'STEP_NODE_ID_MISMATCH', 'steps/end-99.md', '/nodeId']]);
    expect(report.issues[0]!.hint).toBe('Set nodeId: "end-99", or point the node at the right file.');
  });

  it('reports two nodes sharing a step file', () => {
    const report = validate(hello, (f) =>
      editJson(f, 'workflow.graph.json', (g) => (g.nodes[3].file = 'steps/step-03a-greenfield.md')),
    );
    expect(where(report.errors)).toEqual([['error', 'STEP_NODE_ID_MISMATCH', 'steps/step-03a-greenfield.md', '/nodeId']]);
    expect(where(report.warnings)).toEqual([['warning', 'STEP_ORPHAN_FILE', 'steps/step-03b-brownfield.md', undefined]]);
  });

  it('requires every agentId to name an agent', () => {
    const report = validate(hello, (f) => {
      editJson(f, 'workflow.graph.json', (g) => (g.nodes[1].agentId = 'ghost'));
      editText(f, 'steps/step-02-decide-project-type.md', 'agentId: "pm"', 'agentId: "ghost"');
      editText(f, 'steps/end-99.md', 'agentId: "summarizer"', 'agentId: "nobody"');
      editJson(f, 'workflow.graph.json', (g) => delete g.nodes[4].agentId);
    });
    expect(where(report.errors)).toEqual([
      ['error', 'AGENT_NOT_FOUND', 'workflow.graph.json', '/nodes/1/agentId'],
      ['error', 'AGENT_NOT_FOUND', 'steps/step-02-decide-project-type.md', '/agentId'],
      ['error', 'AGENT_NOT_FOUND', 'steps/end-99.md', '/agentId'],
    ]);
    expect(report.errors[0]!.hint).toContain('Known agents: analyst, pm, architect, summarizer.');
  });

  it('requires referenced assets to exist, in the body and the frontmatter', () => {
    const report = validate(hello, (f) => f.delete('assets/templates/plan-template.md'));
    expect(where(report.errors)).toEqual([
      ['error', 'ASSET_MISSING', 'steps/step-03a-greenfield.md', '/inputs/1'],
      ['error', 'ASSET_MISSING', 'steps/step-03a-greenfield.md', undefined],
      ['error', 'ASSET_MISSING', 'steps/step-03b-brownfield.md', '/inputs/1'],
      ['error', 'ASSET_MISSING', 'steps/step-03b-brownfield.md', undefined],
    ]);
    expect(report.errors[1]!.message).toBe(
      'Line 24 references assets/templates/plan-template.md, but the package has no such asset.',
    );
  });

  it('warns when a step disagrees with its node', () => {
    const report = validate(hello, (f) => {
      editText(f, 'steps/step-01-intake.md', 'agentId: "analyst"', 'agentId: "pm"');
      editText(f, 'steps/step-01-intake.md', 'to: "decide-02-project-type"', 'to: "end-99"');
    });
    expect(where(report.issues)).toEqual([
      ['warning', 'STEP_AGENT_MISMATCH', 'steps/step-01-intake.md', '/agentId'],
      ['warning', 'STEP_TRANSITION_MISMATCH', 'steps/step-01-intake.md', '/transitions/0/to'],
    ]);
  });
});

describe('stage 5: security and paths', () => {
  it('checks asset paths, extensions and sizes', () => {
    const report = validate(hello, (f) => {
      f.set('assets/run.sh', 'echo');
      f.set('assets/big.md', 'x'.repeat(256 * 1024 + 1));
      f.set('assets/a b.md', 'x');
    });
    expect(where(report.issues)).toEqual([
      ['error', 'ASSET_INVALID_PATH', 'assets/a b.md', undefined],
      ['error', 'ASSET_TOO_LARGE', 'assets/big.md', undefined],
      ['error', 'ASSET_INVALID_PATH', 'assets/run.sh', undefined],
    ]);
  });

  it('checks the asset count and total size', () => {
    const report = validate(hello, (f) => {
      for (let i = 0; i < 200; i++) f.set(`assets/many/f${i}.txt`, 'x');
    });
    expect(where(report.issues)).toEqual([['error', 'ASSET_LIMIT_REACHED', 'assets/', undefined]]);
    const big = validate(hello, (f) => {
      for (let i = 0; i < 9; i++) f.set(`assets/big/f${i}.txt`, 'x'.repeat(250 * 1024));
    });
    expect(where(big.issues)).toEqual([['error', 'ASSET_LIMIT_REACHED', 'assets/', undefined]]);
  });

  it('refuses node files outside the package', () => {
    const report = validate(hello, (f) => editJson(f, 'workflow.graph.json', (g) => (g.nodes[4].file = '../end-99.md')));
    expect(where(report.errors)).toEqual([
      ['error', 'STEP_FILE_MISSING', 'workflow.graph.json', '/nodes/4/file'],
      ['error', 'PATH_UNSAFE', 'workflow.graph.json', '/nodes/4/file'],
    ]);
  });

  it('warns about files outside the layout', () => {
    const report = validate(hello, (f) => f.set('notes/todo.md', 'x'));
    expect(where(report.issues)).toEqual([['warning', 'PKG_UNKNOWN_FILE', 'notes/todo.md', undefined]]);
  });
});

describe('pipeline stages', () => {
  it('runs added stages in order over the parsed package', () => {
    const seen: string[] = [];
    const probe = (id: string, order: number): ValidationStage => ({
      id,
      order,
      run(ctx) {
        seen.push(`${id}:${ctx.issues.map((i) => i.code).join(',')}:${ctx.parsed.workflows.length}`);
        if (id === 'impact') ctx.report({ severity: 'warning', code: 'AI_REVISION_BASE_MISMATCH', filePath: 'bmad.json', message: 'x' });
      },
    });
    const report = validatePackage(packageFromFiles(hello), { stages: [probe('revisions', 6), probe('impact', 4)] });
    expect(seen).toEqual(['impact::1', 'revisions:AI_REVISION_BASE_MISMATCH:1']);
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['AI_REVISION_BASE_MISMATCH']);
  });

  it('does not run any stage after stage 1 fails', () => {
    let ran = false;
    const files = new Map(hello);
    files.set('agents.json', '{');
    validatePackage(packageFromFiles(files), { stages: [{ id: 'x', order: 4, run: () => (ran = true) }] });
    expect(ran).toBe(false);
  });
});

describe('garbage in, issues out', () => {
  const junk: unknown[] = [null, 0, -1.5, true, 'x', '', [], {}, [[[]]], { a: { b: [1, { c: null }] } }];

  /** Replaces the value at every position of a JSON document, one at a time. */
  function* everyReplacement(value: unknown, replace: (v: unknown) => unknown, path: Array<string | number> = []): Generator<unknown> {
    yield replace(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        for (const child of everyReplacement(value[i], replace, [...path, i])) yield value.map((v, j) => (j === i ? child : v));
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        for (const child of everyReplacement(v, replace, [...path, key])) yield { ...value, [key]: child };
      }
    }
  }

  it('never throws on wrong types anywhere in any JSON file', () => {
    let runs = 0;
    for (const path of ['bmad.json', 'agents.json', 'workflow.graph.json']) {
      const original = JSON.parse(hello.get(path)!);
      for (const value of junk) {
        for (const variant of everyReplacement(original, () => value)) {
          const files = new Map(hello);
          files.set(path, JSON.stringify(variant));
          const report = validatePackage(packageFromFiles(files));
          expect(report.valid || report.errors.length > 0).toBe(true);
          runs++;
        }
      }
    }
    expect(runs).toBeGreaterThan(500);
  });

  it('never throws on hostile text', () => {
    const hostile = [
      '',
      '\0\0\0',
      '---',
      '---\n---',
      '{'.repeat(100000),
      '['.repeat(100000) + ']'.repeat(100000),
      `---\n${'- '.repeat(5000)}x\n---\n`,
      '\uFEFF\uFEFF{}',
      'x'.repeat(2 * 1024 * 1024),
    ];
    for (const text of hostile) {
      for (const path of ['bmad.json', 'agents.json', 'workflow.graph.json', 'workflow.md', 'steps/end-99.md']) {
        const files = new Map(hello);
        files.set(path, text);
        const report = validatePackage(packageFromFiles(files));
        expect(report.schemaFailed, `${path}: ${text.slice(0, 20)}`).toBe(true);
      }
    }
  });
});
