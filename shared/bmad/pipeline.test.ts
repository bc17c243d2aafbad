import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { AgentsFile, BmadManifest, WorkflowGraph } from './models.ts';
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

const branching = loadFixture('branching');
const two = loadFixture('two-workflows');
const TT = 'workflows/ticket-triage';
const INTAKE = 'steps/01-collect-background.md';
const FINISH = 'steps/99-finish.md';

describe('validatePackage on the test packages', () => {
  it.each([
    ['branching', branching],
    ['two-workflows', two],
  ])('%s is valid with no issues at all', (_name, files) => {
    expect(validate(files)).toEqual({ valid: true, schemaFailed: false, issues: [], errors: [], warnings: [] });
  });
});

describe('stage 1: parse and shape', () => {
  it('reports every broken file, then stops before the rule stages', () => {
    const report = validate(branching, (f) => {
      editText(f, 'agents.json', '"agents": [', '"agents": [,');
      editText(f, FINISH, 'schemaVersion: "1.1"', 'schemaVersion: 1.1');
      editText(f, INTAKE, '## Goal', '## Aim'); // a stage-2 problem: not reported
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
      ['error', 'SCHEMA_TYPE', FINISH, '/schemaVersion'],
    ]);
    expect(report.errors).toHaveLength(4);
    expect(report.issues[0]!.message).toBe(
      'agents.json is not valid JSON: Unexpected character "," (line 3, column 14)',
    );
  });

  it('reports missing files', () => {
    const report = validate(branching, (f) => {
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
    const pkg: BmadPackage = { ...packageFromFiles(branching), workflows: [] };
    expect(where(validatePackage(pkg).issues)).toEqual([['error', 'PKG_NO_WORKFLOW', 'bmad.json', undefined]]);
  });

  it('reports frontmatter problems with the STEP_* codes', () => {
    const report = validate(branching, (f) => {
      f.set(FINISH, `\n${f.get(FINISH)!}`);
      editText(f, INTAKE, 'type: "step"', 'type: "step"\nnodeId: "again"');
    });
    expect(where(report.issues)).toEqual([
      ['error', 'STEP_INVALID_FRONTMATTER', INTAKE, undefined],
      ['error', 'STEP_MISSING_FRONTMATTER', FINISH, undefined],
    ]);
  });
});

describe('stage 2: BMAD rules', () => {
  it('checks that the manifest entry points into the package', () => {
    const report = validate(two, (f) => editJson(f, 'bmad.json', (m) => (m.entry.graph = `${TT}/graph.json`)));
    expect(where(report.errors)).toEqual([['error', 'MANIFEST_ENTRY_NOT_FOUND', 'bmad.json', '/entry/graph']]);
  });

  it('checks agent ids are unique', () => {
    const report = validate(two, (f) => editJson(f, 'agents.json', (a) => (a.agents[2].id = 'triager')));
    expect(where(report.errors)).toContainEqual(['error', 'AGENT_DUPLICATE_ID', 'agents.json', '/agents/2/id']);
  });

  it('checks workflow ids are unique', () => {
    const report = validate(two, (f) => editJson(f, 'bmad.json', (m) => (m.workflows[1].id = 'ticket-triage')));
    expect(where(report.errors)).toContainEqual(['error', 'WORKFLOW_DUPLICATE_ID', 'bmad.json', '/workflows/1/id']);
  });

  it('runs the graph rules on every workflow', () => {
    const report = validate(two, (f) =>
      editJson(f, `${TT}/workflow.graph.json`, (g) => {
        g.nodes[2].type = 'step'; // decide-details: its loop loses its decision
      }),
    );
    expect(where(report.errors)).toEqual([
      ['error', 'GRAPH_CYCLE_MISSING_DECISION', `${TT}/workflow.graph.json`, '/nodes/1'],
    ]);
    expect(where(report.warnings)).toEqual([['warning', 'STEP_TYPE_MISMATCH', `${TT}/steps/decide-details.md`, '/type']]);
  });

  it('checks step bodies', () => {
    const report = validate(branching, (f) => {
      editText(f, FINISH, '## Goal', '## Purpose');
      editText(f, INTAKE, /## Instructions[\s\S]*?## Completion/u, '## Instructions\n\n## Completion');
    });
    expect(where(report.issues)).toEqual([
      ['warning', 'STEP_EMPTY_SECTION', INTAKE, undefined],
      ['error', 'STEP_MISSING_GOAL', FINISH, undefined],
    ]);
  });

  it('warns on broken Steps Index links and unknown state nodes', () => {
    const report = validate(two, (f) => {
      editText(f, `${TT}/workflow.md`, '(steps/closed.md)', '(steps/finish.md)');
      editText(f, `${TT}/workflow.md`, 'currentNodeId: "receive-ticket"', 'currentNodeId: "start"');
    });
    expect(report.valid).toBe(true);
    expect(where(report.warnings)).toEqual([
      ['warning', 'WORKFLOW_STEPS_INDEX_BROKEN_LINK', `${TT}/workflow.md`, undefined],
      ['warning', 'WORKFLOW_STATE_UNKNOWN_NODE', `${TT}/workflow.md`, '/currentNodeId'],
    ]);
    expect(report.warnings[0]!.message).toBe(
      `Steps Index link "steps/finish.md" (line 28) points at ${TT}/steps/finish.md, which does not exist.`,
    );
  });
});

describe('stage 3: reference integrity', () => {
  it('requires every node to have its step file, with a hint for workflow-relative paths', () => {
    const report = validate(two, (f) =>
      editJson(f, `${TT}/workflow.graph.json`, (g) => (g.nodes[8].file = 'steps/closed.md')),
    );
    expect(where(report.issues)).toEqual([
      ['error', 'STEP_FILE_MISSING', `${TT}/workflow.graph.json`, '/nodes/8/file'],
      ['warning', 'STEP_ORPHAN_FILE', `${TT}/steps/closed.md`, undefined],
    ]);
    expect(report.errors[0]!.hint).toBe(`node.file is relative to the package root: use "${TT}/steps/closed.md".`);
  });

  it("requires the step's nodeId to be the node's id", () => {
    const report = validate(branching, (f) => editText(f, FINISH, 'nodeId: "finish"', 'nodeId: "finish-2"'));
    expect(where(report.issues)).toEqual([['error', 'STEP_NODE_ID_MISMATCH', FINISH, '/nodeId']]);
    expect(report.issues[0]!.hint).toBe('Set nodeId: "finish", or point the node at the right file.');
  });

  it('reports two nodes sharing a step file', () => {
    const report = validate(branching, (f) =>
      editJson(f, 'workflow.graph.json', (g) => (g.nodes[3].file = 'steps/03a-beginner-plan.md')),
    );
    expect(where(report.errors)).toEqual([['error', 'STEP_NODE_ID_MISMATCH', 'steps/03a-beginner-plan.md', '/nodeId']]);
    expect(where(report.warnings)).toEqual([['warning', 'STEP_ORPHAN_FILE', 'steps/03b-advanced-plan.md', undefined]]);
  });

  it('requires every agentId to name an agent', () => {
    const report = validate(branching, (f) => {
      editJson(f, 'workflow.graph.json', (g) => (g.nodes[1].agentId = 'ghost'));
      editText(f, 'steps/02-decide-track.md', 'agentId: "advisor"', 'agentId: "ghost"');
      editText(f, FINISH, 'agentId: "advisor"', 'agentId: "nobody"');
      editJson(f, 'workflow.graph.json', (g) => delete g.nodes[5].agentId);
    });
    expect(where(report.errors)).toEqual([
      ['error', 'AGENT_NOT_FOUND', 'workflow.graph.json', '/nodes/1/agentId'],
      ['error', 'AGENT_NOT_FOUND', 'steps/02-decide-track.md', '/agentId'],
      ['error', 'AGENT_NOT_FOUND', FINISH, '/agentId'],
    ]);
    expect(report.errors[0]!.hint).toContain('Known agents: advisor.');
  });

  it('requires referenced assets to exist, in the body and the frontmatter', () => {
    const report = validate(branching, (f) => f.delete('assets/templates/study-plan.md'));
    expect(where(report.errors)).toEqual([
      ['error', 'ASSET_MISSING', 'steps/03a-beginner-plan.md', '/inputs/1'],
      ['error', 'ASSET_MISSING', 'steps/03a-beginner-plan.md', undefined],
      ['error', 'ASSET_MISSING', 'steps/03b-advanced-plan.md', '/inputs/1'],
      ['error', 'ASSET_MISSING', 'steps/03b-advanced-plan.md', undefined],
    ]);
    expect(report.errors[1]!.message).toBe(
      'Line 24 references assets/templates/study-plan.md, but the package has no such asset.',
    );
  });

  it('warns when a step disagrees with its node', () => {
    const report = validate(branching, (f) => {
      // A second, real agent, so the step's agentId exists but differs from its node's.
      editJson(f, 'agents.json', (a) => a.agents.push({ ...a.agents[0], id: 'registrar' }));
      editText(f, INTAKE, 'agentId: "advisor"', 'agentId: "registrar"');
      editText(f, INTAKE, 'to: "choose-track"', 'to: "finish"');
    });
    expect(where(report.issues)).toEqual([
      ['warning', 'STEP_AGENT_MISMATCH', INTAKE, '/agentId'],
      ['warning', 'STEP_TRANSITION_MISMATCH', INTAKE, '/transitions/0/to'],
    ]);
  });
});

describe('stage 5: security and paths', () => {
  it('checks asset paths, extensions and sizes', () => {
    const report = validate(branching, (f) => {
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

  it('refuses asset paths that would collide once unpacked: same name in another case, a file named like a folder', () => {
    const report = validate(branching, (f) => {
      f.set('assets/Plan.md', 'one');
      f.set('assets/plan.md', 'two');
      f.set('assets/notes.md', 'a file');
      f.set('assets/notes.md/inside.md', 'in a folder of the same name');
      f.set('assets/Guides/a.md', 'a');
      f.set('assets/guides/b.md', 'b: folders that differ in case merge, no file is lost');
    });
    const found = report.issues.filter((i) => i.code === 'ASSET_INVALID_PATH');
    expect(found.map((i) => [i.filePath, i.message])).toEqual([
      ['assets/notes.md/inside.md', 'assets/notes.md/inside.md would be inside assets/notes.md, which is a file: a file and a folder cannot share a name.'],
      ['assets/plan.md', 'assets/plan.md differs from assets/Plan.md only in letter case: unpacked on Windows or macOS, one would overwrite the other.'],
    ]);
    // The folder read first (paths are read in order, and "A" comes before "a"), then the file of its name.
    const reversed = validate(branching, (f) => {
      f.set('assets/A.md/z.md', 'inside');
      f.set('assets/a.md', 'the file');
    });
    expect(reversed.issues.filter((i) => i.code === 'ASSET_INVALID_PATH').map((i) => [i.filePath, i.message])).toEqual([
      ['assets/a.md', 'assets/A.md/z.md would be inside assets/a.md, which is a file: a file and a folder cannot share a name.'],
    ]);
  });

  it('checks the asset count and total size', () => {
    const report = validate(branching, (f) => {
      for (let i = 0; i < 200; i++) f.set(`assets/many/f${i}.txt`, 'x');
    });
    expect(where(report.issues)).toEqual([['error', 'ASSET_LIMIT_REACHED', 'assets/', undefined]]);
    const big = validate(branching, (f) => {
      for (let i = 0; i < 9; i++) f.set(`assets/big/f${i}.txt`, 'x'.repeat(250 * 1024));
    });
    expect(where(big.issues)).toEqual([['error', 'ASSET_LIMIT_REACHED', 'assets/', undefined]]);
  });

  it('refuses node files outside the package', () => {
    const report = validate(branching, (f) => editJson(f, 'workflow.graph.json', (g) => (g.nodes[5].file = '../99-finish.md')));
    expect(where(report.errors)).toEqual([
      ['error', 'STEP_FILE_MISSING', 'workflow.graph.json', '/nodes/5/file'],
      ['error', 'PATH_UNSAFE', 'workflow.graph.json', '/nodes/5/file'],
    ]);
  });

  it('warns about files outside the layout', () => {
    const report = validate(branching, (f) => f.set('notes/todo.md', 'x'));
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
    const report = validatePackage(packageFromFiles(branching), { stages: [probe('revisions', 6), probe('impact', 4)] });
    expect(seen).toEqual(['impact::1', 'revisions:AI_REVISION_BASE_MISMATCH:1']);
    expect(report.valid).toBe(true);
    expect(report.warnings.map((w) => w.code)).toEqual(['AI_REVISION_BASE_MISMATCH']);
  });

  it('does not run any stage after stage 1 fails', () => {
    let ran = false;
    const files = new Map(branching);
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

  it('judges wrong types anywhere in any JSON file by the model, and blames that file', () => {
    const models = { 'bmad.json': BmadManifest, 'agents.json': AgentsFile, 'workflow.graph.json': WorkflowGraph };
    let runs = 0;
    let shapeFailures = 0;
    for (const [path, model] of Object.entries(models)) {
      const original = JSON.parse(branching.get(path)!);
      for (const value of junk) {
        for (const variant of everyReplacement(original, () => value)) {
          const files = new Map(branching);
          files.set(path, JSON.stringify(variant));
          const report = validatePackage(packageFromFiles(files));
          const label = `${path}: ${JSON.stringify(variant).slice(0, 120)}`;
          if (model.safeParse(variant).success) {
            // A valid manifest can still point entry.agents at a file that is not there: the only
            // stage-1 failure left for a document the model accepts.
            if (report.schemaFailed) expect([path, ...new Set(report.errors.map((e) => e.code))], label).toEqual(['bmad.json', 'FILE_MISSING']);
          } else {
            shapeFailures++;
            expect(report.schemaFailed, label).toBe(true);
            expect(report.valid, label).toBe(false);
            expect(report.errors.length, label).toBeGreaterThan(0);
            expect(report.errors.every((e) => e.filePath === path), label).toBe(true);
          }
          runs++;
        }
      }
    }
    expect(runs).toBeGreaterThan(500);
    expect(shapeFailures).toBeGreaterThan(runs / 2);
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
      for (const path of ['bmad.json', 'agents.json', 'workflow.graph.json', 'workflow.md', FINISH]) {
        const files = new Map(branching);
        files.set(path, text);
        const report = validatePackage(packageFromFiles(files));
        expect(report.schemaFailed, `${path}: ${text.slice(0, 20)}`).toBe(true);
      }
    }
  });
});
