/** The effective view: baseline + overlay, the diff, revisions and the overlay hash. */
import { sha256Hex } from '../../../shared/hash.ts';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../../test/fixtures/packages.ts';
import type { FixtureName } from '../../../test/fixtures/packages.ts';
import { packageFromFiles, toMultiWorkflowLayout, validatePackage } from '../../../shared/bmad/index.ts';
import type { BmadPackage } from '../../../shared/bmad/index.ts';
import type { Baseline, OverlayEntry } from '../../../shared/ai/overlay.ts';
import {
  changedFiles,
  contentOf,
  createEffectiveView,
  effectivePackage,
  keyOfPath,
  overlayHash,
  pathOf,
  revisionOf,
  scopeOf,
} from './effective-view.ts';

/** A test package in the layout the package store keeps (what import writes). */
function stored(name: FixtureName): BmadPackage {
  return toMultiWorkflowLayout(packageFromFiles(loadFixture(name)));
}

function baselineOf(pkg: BmadPackage): Baseline {
  const workflows = Object.fromEntries(pkg.workflows.map((w, i) => [w.id, 10 + i]));
  return { projectId: 'p1', pkg, revisions: { workflows, agents: 4, assets: 7 } };
}

const put = (key: string, content: string): OverlayEntry => ({ key, deleted: false, content, baseRevision: 1, baseHash: null });
const del = (key: string): OverlayEntry => ({ key, deleted: true, content: '', baseRevision: 1, baseHash: null });

const EC = 'ticket-triage';
const NEWBIE = {
  id: 'newbie',
  metadata: { name: 'Nia', title: 'Reviewer', icon: 'R' },
  persona: { role: 'Reviewer', identity: 'Reads twice.', communication_style: 'Brief.', principles: 'Check the numbers.' },
};
const NEW_STEP = `---
schemaVersion: "1.1"
nodeId: "start"
type: "end"
title: "Start"
---

# Start

## Goal

Say hello.

## Instructions

1. Read @pkg/assets/notes/new.md.
`;
const NEW_GRAPH = `${JSON.stringify(
  {
    schemaVersion: '1.1',
    entryNodeId: 'start',
    nodes: [{ id: 'start', type: 'end', file: 'workflows/fresh/steps/start.md', title: 'Start' }],
    edges: [],
  },
  null,
  2,
)}\n`;
const NEW_WORKFLOW_MD = `---
schemaVersion: "1.1"
workflowType: "fresh"
currentNodeId: "start"
stepsCompleted: []
---

# Fresh

## Steps Index

- [start](steps/start.md)
`;

describe('contentOf / pathOf / keyOfPath', () => {
  const pkg = stored('two-workflows');

  it('reads every file of the package by key and maps its path back to the key', () => {
    const keys: string[] = [];
    for (const w of pkg.workflows) {
      keys.push(`workflow:${w.id}`, `graph:${w.id}`, ...w.steps.map((s) => `step:${w.id}/${s.nodeId}`));
    }
    keys.push(...pkg.assets.map((a) => `asset:${a.path}`));
    expect(keys.length).toBe(2 + 2 + 9 + 4 + 2);
    for (const key of keys) {
      const path = pathOf(pkg, key);
      expect(path, key).toBeDefined();
      expect(keyOfPath(pkg, path!)).toBe(key);
    }
    const check = pkg.workflows.find((w) => w.id === EC)!.steps.find((s) => s.nodeId === 'classify-issue')!;
    expect(contentOf(pkg, `step:${EC}/classify-issue`)).toBe(check.markdown);
    expect(pathOf(pkg, `step:${EC}/classify-issue`)).toBe(`workflows/${EC}/steps/classify-issue.md`);
    expect(contentOf(pkg, `graph:${EC}`)).toBe(pkg.workflows[0]!.graphJson);
    expect(contentOf(pkg, 'asset:assets/data/sla-targets.yaml')).toBe(pkg.assets.find((a) => a.path === 'assets/data/sla-targets.yaml')!.content);
  });

  it('reads an agent as its own JSON object, living in agents.json', () => {
    const text = contentOf(pkg, 'agent:triager');
    expect(JSON.parse(text!)).toMatchObject({ id: 'triager', metadata: { name: expect.any(String) } });
    expect(text).toBe(JSON.stringify(JSON.parse(text!), null, 2));
    expect(pathOf(pkg, 'agent:triager')).toBe('agents.json');
    expect(keyOfPath(pkg, 'agents.json')).toBeUndefined();
    expect(keyOfPath(pkg, 'bmad.json')).toBeUndefined();
  });

  it('answers null / undefined for what the package does not hold', () => {
    for (const key of ['step:ticket-triage/nope', 'workflow:nope', 'agent:nope', 'asset:assets/nope.md', 'workflow-name:ticket-triage', 'garbage']) {
      expect(contentOf(pkg, key), key).toBeNull();
      expect(pathOf(pkg, key), key).toBeUndefined();
    }
  });

  it('finds a step without a stored nodeId through the graph node that uses its file', () => {
    const workflow = pkg.workflows[0]!;
    const anonymous: BmadPackage = { ...pkg, workflows: [{ ...workflow, steps: workflow.steps.map(({ nodeId: _drop, ...s }) => s) }] };
    expect(contentOf(anonymous, `step:${EC}/closed`)).toBe(workflow.steps.find((s) => s.nodeId === 'closed')!.markdown);
    expect(keyOfPath(anonymous, `workflows/${EC}/steps/closed.md`)).toBe(`step:${EC}/closed`);
  });
});

describe('effectivePackage', () => {
  const baseline = stored('two-workflows');
  const snapshot = structuredClone(baseline);
  const triager = JSON.parse(contentOf(baseline, 'agent:triager')!) as Record<string, unknown>;
  const entries = [
    put(`step:${EC}/classify-issue`, '---\nchanged\n---\n'),
    del(`step:${EC}/ask-customer`),
    put('asset:assets/notes/new.md', '# New\n'),
    put('asset:assets/a-first.md', '# First\n'),
    put('workflow:fresh', NEW_WORKFLOW_MD),
    put('graph:fresh', NEW_GRAPH),
    put('step:fresh/start', NEW_STEP),
    put('agent:triager', JSON.stringify({ ...triager, systemPrompt: 'Be strict.' })),
    put('agent:newbie', JSON.stringify(NEWBIE)),
    del('agent:reporter'),
  ];
  const pkg = effectivePackage(baseline, entries);

  it('never mutates the baseline', () => {
    expect(baseline).toEqual(snapshot);
    expect(pkg.workflows[0]).not.toBe(baseline.workflows[0]);
  });

  it('applies modified and deleted steps in place', () => {
    const workflow = pkg.workflows.find((w) => w.id === EC)!;
    expect(contentOf(pkg, `step:${EC}/classify-issue`)).toBe('---\nchanged\n---\n');
    expect(pathOf(pkg, `step:${EC}/classify-issue`)).toBe(`workflows/${EC}/steps/classify-issue.md`);
    expect(workflow.steps.map((s) => s.nodeId)).not.toContain('ask-customer');
    expect(workflow.steps).toHaveLength(8);
  });

  it('creates a new workflow at workflows/<id>/ with its step where the graph puts it, and re-derives bmad.json', () => {
    const fresh = pkg.workflows.find((w) => w.id === 'fresh')!;
    expect(fresh).toMatchObject({
      workflowMdPath: 'workflows/fresh/workflow.md',
      graphPath: 'workflows/fresh/workflow.graph.json',
      workflowMd: NEW_WORKFLOW_MD,
      graphJson: NEW_GRAPH,
      steps: [{ nodeId: 'start', path: 'workflows/fresh/steps/start.md', markdown: NEW_STEP }],
    });
    const manifest = JSON.parse(pkg.manifestJson!) as { workflows: Array<{ id: string; workflow: string }>; name: string };
    expect(manifest.workflows.map((w) => w.id)).toEqual([EC, 'weekly-report', 'fresh']);
    expect(manifest.workflows[2]!.workflow).toBe('workflows/fresh/workflow.md');
    expect(manifest.name).toBe('support-desk');
    expect(pkg.manifestJson!.endsWith('}\n')).toBe(true);
  });

  it('puts a staged step where its graph node says, an upper-case .MD file name included', () => {
    const graph = NEW_GRAPH.replace('workflows/fresh/steps/start.md', 'workflows/fresh/steps/Start.MD');
    const upper = effectivePackage(baseline, [put('workflow:fresh', NEW_WORKFLOW_MD), put('graph:fresh', graph), put('step:fresh/start', NEW_STEP)]);
    expect(upper.workflows.find((w) => w.id === 'fresh')!.steps.map((s) => s.path)).toEqual(['workflows/fresh/steps/Start.MD']);
  });

  it('replaces agents in place, appends new ones, removes deleted ones, as 2-space JSON', () => {
    const document = JSON.parse(pkg.agentsJson!) as { agents: Array<{ id: string; systemPrompt?: string }> };
    const before = (JSON.parse(baseline.agentsJson!) as { agents: Array<{ id: string }> }).agents.map((a) => a.id);
    expect(document.agents.map((a) => a.id)).toEqual([...before.filter((id) => id !== 'reporter'), 'newbie']);
    expect(document.agents[before.indexOf('triager')]!.systemPrompt).toBe('Be strict.');
    expect(pkg.agentsJson).toBe(`${JSON.stringify(document, null, 2)}\n`);
  });

  it('upserts assets and keeps them sorted by path', () => {
    expect(pkg.assets.map((a) => a.path)).toEqual([
      'assets/a-first.md',
      'assets/data/sla-targets.yaml',
      'assets/notes/new.md',
      'assets/policies/support-policy.md',
    ]);
  });

  it('gives a package the validator accepts when the staged files are valid', () => {
    // Without the broken step edit and without deleting an agent that weekly-report uses.
    const valid = effectivePackage(baseline, entries.filter((e) => !e.key.startsWith(`step:${EC}/`) && e.key !== 'agent:reporter'));
    expect(validatePackage(valid).errors).toEqual([]);
    expect(validatePackage(pkg).valid).toBe(false);
  });

  it('leaves the package as it was when every entry is a no-op deletion', () => {
    const same = effectivePackage(baseline, [del('step:ghost/x'), del('workflow:ghost'), del('agent:ghost'), del('asset:assets/ghost.md')]);
    expect(same).toEqual(baseline);
  });

  it('creates the workflow of a step staged alone, with both files missing, so validation says FILE_MISSING', () => {
    const orphan = effectivePackage(baseline, [put('step:ghost/start', NEW_STEP)]);
    const ghost = orphan.workflows.find((w) => w.id === 'ghost')!;
    expect(ghost).toMatchObject({ workflowMd: null, graphJson: null, steps: [{ path: 'workflows/ghost/steps/start.md' }] });
    const issues = validatePackage(orphan).errors.filter((i) => i.code === 'FILE_MISSING').map((i) => i.filePath);
    expect(issues).toEqual(expect.arrayContaining(['workflows/ghost/workflow.md', 'workflows/ghost/workflow.graph.json']));
  });

  it('places a staged step at its node file in the staged graph, unless that path is unsafe', () => {
    const graph = JSON.parse(baseline.workflows[0]!.graphJson!) as { nodes: Array<{ id: string; file: string }> };
    graph.nodes.find((n) => n.id === 'closed')!.file = `workflows/${EC}/steps/the-end.md`;
    graph.nodes.find((n) => n.id === 'merge-outcome')!.file = '../../etc/passwd.md';
    graph.nodes.push({ id: 'extra', file: 'x' } as never);
    const moved = effectivePackage(baseline, [
      put(`graph:${EC}`, JSON.stringify(graph)),
      put(`step:${EC}/closed`, 'end'),
      put(`step:${EC}/merge-outcome`, 'merge'),
      put(`step:${EC}/extra`, 'extra'),
    ]);
    expect(pathOf(moved, `step:${EC}/closed`)).toBe(`workflows/${EC}/steps/the-end.md`);
    expect(pathOf(moved, `step:${EC}/merge-outcome`)).toBe(`workflows/${EC}/steps/merge-outcome.md`);
    expect(pathOf(moved, `step:${EC}/extra`)).toBe(`workflows/${EC}/steps/extra.md`);
  });

  it('gives a new step a file name every system can unpack when its graph node names none (id kept), numbered past files in use', () => {
    const taken: BmadPackage = { ...baseline, workflows: baseline.workflows.map((w, i) => (i === 0 ? { ...w, steps: [...w.steps, { nodeId: 'other', path: `workflows/${EC}/steps/review_final.md`, markdown: 'x' }] } : w)) };
    const pkg = effectivePackage(taken, [put(`step:${EC}/review:final`, 'review'), put(`step:${EC}/nul`, 'device'), put(`step:${EC}/why?`, 'ask')]);
    expect(pathOf(pkg, `step:${EC}/review:final`)).toBe(`workflows/${EC}/steps/review_final-2.md`);
    expect(pathOf(pkg, `step:${EC}/nul`)).toBe(`workflows/${EC}/steps/nul_.md`);
    expect(pathOf(pkg, `step:${EC}/why?`)).toBe(`workflows/${EC}/steps/why_.md`);
    expect(pkg.workflows[0]!.steps.find((s) => s.path === `workflows/${EC}/steps/review_final-2.md`)).toMatchObject({ nodeId: 'review:final', markdown: 'review' });
    // A stored step keeps its file, whatever its name.
    const stored = { ...baseline, workflows: baseline.workflows.map((w, i) => (i === 0 ? { ...w, steps: [...w.steps, { nodeId: 'a:b', path: `workflows/${EC}/steps/a:b.md`, markdown: 'x' }] } : w)) };
    expect(pathOf(effectivePackage(stored, [put(`step:${EC}/a:b`, 'changed')]), `step:${EC}/a:b`)).toBe(`workflows/${EC}/steps/a:b.md`);
  });

  it('removes a workflow whose files and steps are all deleted, and drops it from bmad.json', () => {
    const workflow = baseline.workflows.find((w) => w.id === 'weekly-report')!;
    const gone = effectivePackage(baseline, [
      del('workflow:weekly-report'),
      del('graph:weekly-report'),
      ...workflow.steps.map((s) => del(`step:weekly-report/${s.nodeId}`)),
    ]);
    expect(gone.workflows.map((w) => w.id)).toEqual([EC]);
    expect((JSON.parse(gone.manifestJson!) as { workflows: Array<{ id: string }> }).workflows.map((w) => w.id)).toEqual([EC]);
    const half = effectivePackage(baseline, [del('workflow:weekly-report')]);
    expect(half.workflows.find((w) => w.id === 'weekly-report')?.workflowMd).toBeNull();
  });

  it('keeps an agent staged as non-JSON in agents.json as its raw text, and validation reports it', () => {
    const broken = effectivePackage(baseline, [put('agent:triager', '{ "id": "triager", oops')]);
    const document = JSON.parse(broken.agentsJson!) as { agents: unknown[] };
    expect(document.agents).toContain('{ "id": "triager", oops');
    expect(contentOf(broken, 'agent:supervisor')).toBe(contentOf(baseline, 'agent:supervisor'));
    expect(contentOf(broken, 'agent:triager')).toBeNull();
    expect(validatePackage(broken).errors.some((i) => i.filePath === 'agents.json')).toBe(true);
  });

  it('does not depend on the order of the entries', () => {
    expect(effectivePackage(baseline, [...entries].reverse())).toEqual(pkg);
  });
});

describe('changedFiles', () => {
  const baseline = baselineOf(stored('two-workflows'));
  const check = contentOf(baseline.pkg, `step:${EC}/classify-issue`)!;
  const triager = JSON.parse(contentOf(baseline.pkg, 'agent:triager')!) as Record<string, unknown>;

  it('lists Added, Modified and Deleted files by key, with their paths', () => {
    const view = createEffectiveView(baseline, [
      put('asset:assets/notes/new.md', 'new'),
      put(`step:${EC}/classify-issue`, `${check}\nMore.\n`),
      del(`step:${EC}/ask-customer`),
      put('agent:newbie', '{"id":"newbie"}'),
    ]);
    expect(changedFiles(view)).toEqual([
      { key: 'agent:newbie', action: 'A', path: 'agents.json' },
      { key: 'asset:assets/notes/new.md', action: 'A', path: 'assets/notes/new.md' },
      { key: `step:${EC}/ask-customer`, action: 'D', path: `workflows/${EC}/steps/ask-customer.md` },
      { key: `step:${EC}/classify-issue`, action: 'M', path: `workflows/${EC}/steps/classify-issue.md` },
    ]);
  });

  it('does not list entries equal to the baseline, nor deletions of absent objects', () => {
    const view = createEffectiveView(baseline, [
      put(`step:${EC}/classify-issue`, check),
      put('agent:triager', JSON.stringify(triager)),
      del('asset:assets/absent.md'),
      del('step:ghost/x'),
      put('workflow-name:ticket-triage', 'Renamed'),
    ]);
    expect(changedFiles(view)).toEqual([]);
  });
});

describe('createEffectiveView', () => {
  it('keeps one entry per key (the last), in key order', () => {
    const baseline = baselineOf(stored('branching'));
    const view = createEffectiveView(baseline, [put('asset:assets/b.md', '1'), put('asset:assets/a.md', '2'), put('asset:assets/b.md', '3')]);
    expect([...view.entries.keys()]).toEqual(['asset:assets/a.md', 'asset:assets/b.md']);
    expect(view.entries.get('asset:assets/b.md')!.content).toBe('3');
    expect(contentOf(view.pkg, 'asset:assets/b.md')).toBe('3');
    expect(view.baseline).toBe(baseline);
  });
});

describe('scopes and revisions', () => {
  const baseline = baselineOf(stored('two-workflows'));

  it('maps every key to its scope', () => {
    expect(scopeOf(`step:${EC}/x`)).toEqual({ kind: 'workflow', workflowId: EC });
    expect(scopeOf('graph:w')).toEqual({ kind: 'workflow', workflowId: 'w' });
    expect(scopeOf('workflow:w')).toEqual({ kind: 'workflow', workflowId: 'w' });
    expect(scopeOf('agent:a')).toEqual({ kind: 'agents' });
    expect(scopeOf('asset:assets/x.md')).toEqual({ kind: 'assets' });
    expect(scopeOf('nonsense')).toBeUndefined();
  });

  it("reads the scope's baseline revision, 0 for a workflow that does not exist", () => {
    expect(revisionOf(baseline, `step:${EC}/classify-issue`)).toBe(10);
    expect(revisionOf(baseline, 'graph:weekly-report')).toBe(11);
    expect(revisionOf(baseline, 'workflow:fresh')).toBe(0);
    expect(revisionOf(baseline, 'workflow:constructor')).toBe(0);
    expect(revisionOf(baseline, 'agent:triager')).toBe(4);
    expect(revisionOf(baseline, 'asset:assets/x.md')).toBe(7);
  });
});

describe('hashes', () => {
  it('sha256Hex matches the standard digest', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex('é✓')).toBe(createHash('sha256').update('é✓', 'utf8').digest('hex'));
  });

  it('hashes an overlay the same whatever the order of its entries', async () => {
    const entries = [put('asset:assets/a.md', 'a'), del('step:w/x'), put('agent:z', '{}')];
    const hash = await overlayHash(entries);
    expect(await overlayHash([...entries].reverse())).toBe(hash);
    expect(await overlayHash([entries[1]!, entries[2]!, entries[0]!])).toBe(hash);
    expect(hash).toBe(await sha256Hex(JSON.stringify([['agent:z', false, '{}'], ['asset:assets/a.md', false, 'a'], ['step:w/x', true, '']])));
  });

  it('changes when a content or a deletion changes, and hashes an empty overlay as "[]"', async () => {
    const base = await overlayHash([put('asset:assets/a.md', 'a')]);
    expect(await overlayHash([put('asset:assets/a.md', 'b')])).not.toBe(base);
    expect(await overlayHash([del('asset:assets/a.md')])).not.toBe(base);
    expect(await overlayHash([])).toBe(createHash('sha256').update('[]').digest('hex'));
  });
});
