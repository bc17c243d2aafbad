// The demo model's edits on the demo project, checked by the product's own validation: every
// target × mode (and "make it shorter") yields files that validatePackage accepts with no new issue.

import { describe, expect, it } from 'vitest';
import { packageFromFiles, validatePackage } from '../../../../shared/bmad/index.ts';
import { loadPackageDir } from '../../../fixtures/packages.ts';
import { bmadStepImproved, checklistStep, shorterStep } from './step-edits.ts';
import { refinePersona, shortenAgent } from './agent-edits.ts';
import { editAsset, newAsset, shortenAsset } from './asset-edits.ts';
import { addIndexLine, retargetTransition } from './step-create.ts';
import { improveWorkflowMd, shorterWorkflowMd } from './workflow-edits.ts';
import { changeSetOf } from './model.ts';
import { NeedCall, Reads, type Edit, type Situation, type Target } from './situation.ts';
import { stepOptimize } from './step-edits.ts';
import { stepCreate } from './step-create.ts';
import { agentCreate, agentOptimize } from './agent-edits.ts';
import { assetCreate, assetOptimize } from './asset-edits.ts';
import { workflowCreate, workflowOptimize } from './workflow-edits.ts';
import type { ToolResult } from './conversation.ts';
import { wording } from './wording.ts';
import { parseChangeSet } from '../../../../shared/ai/change-set.ts';

const DEMO = loadPackageDir(new URL('../../../../scripts/demo-package/', import.meta.url));

type Files = Map<string, string>;
const json = (text: string | undefined) => JSON.parse(text ?? 'null') as any;

/** The read tools, answered from a file map (what the session's effective view would give). */
function answer(files: Files, name: string, args: Record<string, any>): ToolResult['envelope'] {
  const ok = (data: unknown) => ({ ok: true, data, error: null });
  const graphOf = (wf: string) => json(files.get(`workflows/${wf}/workflow.graph.json`));
  switch (name) {
    case 'builder_step_read': {
      const file = graphOf(args.workflowId).nodes.find((n: any) => n.id === args.nodeId)?.file;
      return ok({ markdown: files.get(file) });
    }
    case 'builder_workflow_read':
      return ok({ workflowId: args.workflowId, workflowMd: files.get(`workflows/${args.workflowId}/workflow.md`), graph: graphOf(args.workflowId) });
    case 'builder_agent_read':
      return ok({ agent: json(files.get('agents.json')).agents.find((a: any) => a.id === args.agentId) });
    case 'builder_asset_read':
      return ok({ path: args.path, content: files.get(args.path) });
    default:
      throw new Error(`no fake for ${name}`);
  }
}

/** Runs a strategy, answering every read it asks for, the way the demo's turns do. */
function drive(strategy: (s: Situation) => Edit, target: Target, files: Files, options: { intent?: Situation['intent']; lang?: Situation['lang']; stagedKeys?: string[] } = {}): Edit {
  const results: ToolResult[] = [];
  const context = {
    target_snapshot: { existingWorkflowIds: ['vendor-intake', 'contract-review', 'annual-recertification'], existingAssetPaths: [...files.keys()].filter((p) => p.startsWith('assets/')) },
    dependency_digest: { agentIds: json(files.get('agents.json')).agents.map((a: any) => a.id), agents: json(files.get('agents.json')).agents.map((a: any) => ({ id: a.id })) },
  };
  for (let i = 0; i < 10; i++) {
    const situation: Situation = { target, context, intent: options.intent ?? 'edit', lang: options.lang ?? 'en', stagedKeys: options.stagedKeys ?? [], reads: new Reads(results) };
    try {
      return strategy(situation);
    } catch (error) {
      if (!(error instanceof NeedCall)) throw error;
      results.push({ name: error.name, args: error.args, envelope: answer(files, error.name, error.args) });
    }
  }
  throw new Error('the strategy kept reading');
}

/** The change set's operations written into a copy of the file map. */
function applied(files: Files, operations: any[]): Files {
  const out = new Map(files);
  for (const op of operations) {
    if (op.targetType === 'workflow') {
      const wf = op.target.workflowId;
      if (op.payload.workflowMd !== undefined) out.set(`workflows/${wf}/workflow.md`, op.payload.workflowMd);
      if (op.payload.graphJson !== undefined) out.set(`workflows/${wf}/workflow.graph.json`, op.payload.graphJson);
      const manifest = json(out.get('bmad.json'));
      if (!manifest.workflows.some((w: any) => w.id === wf)) {
        manifest.workflows.push({ id: wf, workflow: `workflows/${wf}/workflow.md`, graph: `workflows/${wf}/workflow.graph.json` });
        out.set('bmad.json', JSON.stringify(manifest));
      }
    } else if (op.targetType === 'step') {
      const file = json(out.get(`workflows/${op.target.workflowId}/workflow.graph.json`)).nodes.find((n: any) => n.id === op.target.nodeId).file;
      out.set(file, op.payload.stepMarkdown);
    } else if (op.targetType === 'agent') {
      const doc = json(out.get('agents.json'));
      const at = doc.agents.findIndex((a: any) => a.id === op.target.agentId);
      if (at >= 0) doc.agents[at] = op.payload.agent;
      else doc.agents.push(op.payload.agent);
      out.set('agents.json', JSON.stringify(doc));
    } else {
      out.set(op.target.path, op.payload.content);
    }
  }
  return out;
}

function issues(files: Files) {
  const report = validatePackage(packageFromFiles(files));
  return { errors: report.errors.map((e) => `${e.code} ${e.filePath}: ${e.message}`), warnings: report.warnings.map((w) => `${w.code} ${w.filePath}`) };
}

const BASELINE = issues(DEMO);

function staged(edit: Edit): Extract<Edit, { kind: 'stage' }> {
  if (edit.kind !== 'stage') throw new Error(`nothing staged: ${edit.summary}`);
  return edit;
}

/** The edit passes the changeSet contract and leaves the package with no error and no new warning. */
function expectValid(target: Target, edit: Extract<Edit, { kind: 'stage' }>, files: Files = DEMO): Files {
  const parsed = parseChangeSet(changeSetOf(target, edit), { targetType: target.targetType, mode: target.mode });
  expect(parsed.ok ? [] : parsed.errors).toEqual([]);
  const after = applied(files, edit.operations);
  const report = issues(after);
  expect(report.errors).toEqual([]);
  expect(report.warnings).toEqual(BASELINE.warnings);
  return after;
}

const T = (targetType: Target['targetType'], mode: Target['mode'], workflowId: string | null, targetId: string | null): Target => ({ targetType, mode, workflowId, targetId });

describe('every target and mode on the demo project passes validation', () => {
  it('step optimize: Instructions become a numbered checklist; frontmatter and other sections stay byte for byte', () => {
    const target = T('step', 'optimize', 'vendor-intake', 'capture-request');
    const edit = staged(drive(stepOptimize, target, DEMO));
    const after = expectValid(target, edit);
    const before = DEMO.get('workflows/vendor-intake/steps/capture-request.md')!;
    const text = after.get('workflows/vendor-intake/steps/capture-request.md')!;
    expect(text).toContain(wording('en').checklistIntro);
    expect(text).toMatch(/^1\. \[ \] Read `@pkg\/assets\/policies\/vendor-risk-policy\.md`/mu);
    expect(text).toMatch(/^6\. \[ \] /mu);
    expect(text.split('## Instructions')[0]).toBe(before.split('## Instructions')[0]);
    expect(text.split('## Completion')[1]).toBe(before.split('## Completion')[1]);
    expect(checklistStep(text, wording('en').checklistIntro)).toBeNull();
    // "make it shorter" on the draft: shorter and still valid.
    const shorter = staged(drive(stepOptimize, target, after, { intent: 'shorter' }));
    const short = expectValid(target, shorter, after).get('workflows/vendor-intake/steps/capture-request.md')!;
    expect(short.length).toBeLessThan(text.length);
    expect(short).toContain('## Goal');
  });

  it('step create: a new step file, its node between a step and its successor, the predecessor transition and a Steps Index line', () => {
    const target = T('step', 'create', 'vendor-intake', null);
    const edit = staged(drive(stepCreate, target, DEMO));
    const after = expectValid(target, edit);
    const graph = json(after.get('workflows/vendor-intake/workflow.graph.json'));
    const node = graph.nodes.find((n: any) => n.id === 'quality-review');
    expect(node).toMatchObject({ type: 'step', file: 'workflows/vendor-intake/steps/quality-review.md' });
    const into = graph.edges.filter((e: any) => e.to === 'quality-review').map((e: any) => e.from);
    const out = graph.edges.filter((e: any) => e.from === 'quality-review').map((e: any) => e.to);
    expect([into.length, out.length]).toEqual([1, 1]);
    expect(after.get(`workflows/vendor-intake/steps/${into[0]}.md`)).toContain('to: "quality-review"');
    expect(after.get('workflows/vendor-intake/workflow.md')).toContain('- [quality-review](steps/quality-review.md)');
    expect(edit.objects).toEqual(expect.arrayContaining(['graph:vendor-intake', 'step:vendor-intake/quality-review', 'workflow:vendor-intake', `step:vendor-intake/${into[0]}`]));
    // With a chosen id, that id is used.
    const chosen = staged(drive(stepCreate, T('step', 'create', 'vendor-intake', 'final-check'), DEMO));
    expect(chosen.objects).toContain('step:vendor-intake/final-check');
  });

  it('agent optimize keeps the agentId and refines the persona; agent create adds a valid agent in the same module', () => {
    const target = T('agent', 'optimize', null, 'procurement-analyst');
    const edit = staged(drive(agentOptimize, target, DEMO));
    const after = expectValid(target, edit);
    const agent = json(after.get('agents.json')).agents.find((a: any) => a.id === 'procurement-analyst');
    expect(agent.persona.principles).toContain(wording('en').persona.principle);
    expect(refinePersona(agent, 'en')).toBeNull();
    expect(shortenAgent(agent)).not.toBeNull();
    const create = T('agent', 'create', null, null);
    const created = staged(drive(agentCreate, create, DEMO));
    const withNew = expectValid(create, created);
    expect(json(withNew.get('agents.json')).agents.find((a: any) => a.id === 'quality-reviewer').metadata.module).toBe('procurement');
  });

  it('asset optimize edits the template in its own format; asset create writes a new allowed file', () => {
    const target = T('asset', 'optimize', null, 'assets/templates/onboarding-summary.md');
    const edit = staged(drive(assetOptimize, target, DEMO));
    const after = expectValid(target, edit);
    expect(after.get('assets/templates/onboarding-summary.md')).toMatch(/\n## Review checklist\n\n- \[ \] /u);
    expect(json(editAsset('assets/data/x.json', DEMO.get('assets/data/risk-thresholds.json')!, 'en')!).reviewNotes).toHaveLength(3);
    expect(editAsset('assets/checklists/x.yaml', DEMO.get('assets/checklists/due-diligence.yaml')!, 'en')).toContain('# Review checklist:\n#   - ');
    const json1 = editAsset('assets/d.json', '{"a": 1}', 'en')!;
    expect(shortenAsset('assets/d.json', json1, 'en')).toBe('{\n  "a": 1\n}\n');
    const create = T('asset', 'create', null, null);
    const created = staged(drive(assetCreate, create, DEMO));
    expectValid(create, created);
    expect(created.objects).toEqual(['asset:assets/notes/review-checklist.md']);
    expect(JSON.parse(newAsset('assets/notes/x.json', 'zh')).title).toBe('复核清单');
  });

  it('workflow optimize adds a checklist before the Steps Index; workflow create writes three linked steps', () => {
    const target = T('workflow', 'optimize', 'vendor-intake', 'vendor-intake');
    const edit = staged(drive(workflowOptimize, target, DEMO));
    const after = expectValid(target, edit);
    const md = after.get('workflows/vendor-intake/workflow.md')!;
    expect(md.indexOf('## Before you start')).toBeLessThan(md.indexOf('## Steps Index'));
    expect(improveWorkflowMd(md, 'en')).toBeNull();
    const shorter = shorterWorkflowMd(md)!;
    expect(shorter.length).toBeLessThan(md.length);
    expect(shorter.split('## Steps Index')[1]).toBe(md.split('## Steps Index')[1]);
    const create = T('workflow', 'create', null, null);
    const created = staged(drive(workflowCreate, create, DEMO));
    const withNew = expectValid(create, created);
    const graph = json(withNew.get('workflows/review-cycle/workflow.graph.json'));
    expect(graph.nodes.map((n: any) => n.id)).toEqual(['prepare', 'review', 'close']);
    expect(graph.edges.map((e: any) => `${e.from}>${e.to}`)).toEqual(['prepare>review', 'review>close']);
  });
});

/** A step written to BMAD-METHOD's own conventions (as an import keeps it): rules, task, a sequence of numbered parts, no Goal or Instructions. */
const BMAD_BODY = [
  '# Step 1: Capture the Vendor Request',
  '',
  '## MANDATORY EXECUTION RULES (READ FIRST):',
  '',
  '- ✅ YOU ARE A PROCUREMENT ANALYST gathering facts, not judging them',
  '- 📋 Record every fact with its source',
  '',
  '## CONTEXT BOUNDARIES:',
  '',
  "- The business owner's request is available",
  '',
  '## YOUR TASK:',
  '',
  'Turn the request into a vendor profile the risk score can use.',
  '',
  '## CAPTURE SEQUENCE:',
  '',
  '### 1. Read the Request',
  '',
  'Read the request and note who asked.',
  '',
  '### 2. **Fill the Profile:**',
  '',
  'Write the legal name, annual spend and data access into the profile.',
  '',
  '```markdown',
  '### 9. Not a part (inside a fence)',
  '```',
  '',
  '### 3. Confirm With the Owner',
  '',
  'Show the profile and ask for corrections.',
  '',
  '## SUCCESS METRICS:',
  '',
  '✅ Every fact has a source',
  '',
].join('\n');

/** The demo project with its first step rewritten in BMAD-METHOD's way, marked as imported from that layout. */
function withBmadStep(body: string): Files {
  const path = 'workflows/vendor-intake/steps/capture-request.md';
  const stored = DEMO.get(path)!;
  const frontmatter = stored.slice(0, stored.indexOf('\n---\n') + 5).replace('type: "step"\n', 'type: "step"\norigin: "bmad-method"\n');
  return new Map([...DEMO, [path, `${frontmatter}\n${body}`]]);
}

describe('a step written in BMAD-METHOD\'s own way (no "## Instructions")', () => {
  const path = 'workflows/vendor-intake/steps/capture-request.md';
  const target = T('step', 'optimize', 'vendor-intake', 'capture-request');

  /** Like expectValid, against the package the step came in: no error, no new warning. */
  function expectNoNewIssue(files: Files, edit: Extract<Edit, { kind: 'stage' }>): Files {
    const parsed = parseChangeSet(changeSetOf(target, edit), { targetType: 'step', mode: 'optimize' });
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    const after = applied(files, edit.operations);
    expect(issues(after).errors).toEqual([]);
    expect(issues(after).warnings).toEqual(issues(files).warnings);
    return after;
  }

  it('stages a checklist of its numbered parts at the top of its sequence; every other line stays as written', () => {
    const files = withBmadStep(BMAD_BODY);
    const edit = staged(drive(stepOptimize, target, files));
    expect(edit.summary).toContain('"CAPTURE SEQUENCE" now opens with a checklist of its 3 numbered parts');
    const text = expectNoNewIssue(files, edit).get(path)!;
    const checklist = `${wording('en').checklistIntro}\n\n1. [ ] Read the Request\n2. [ ] Fill the Profile\n3. [ ] Confirm With the Owner\n\n`;
    expect(text).toBe(files.get(path)!.replace('## CAPTURE SEQUENCE:\n\n', `## CAPTURE SEQUENCE:\n\n${checklist}`));
    // Asked again, it has nothing more to add.
    const again = drive(stepOptimize, target, new Map([...files, [path, text]]));
    expect(again.kind).toBe('none');
    expect(again.summary).toContain('already has the checklist');
  });

  it('with no numbered parts, stages a "Before you start" checklist after its task, in the content language', () => {
    const body = BMAD_BODY.replace(/### (\d)\. /gu, '**$1.** ');
    const files = withBmadStep(body);
    const edit = staged(drive(stepOptimize, target, files, { lang: 'zh' }));
    const text = expectNoNewIssue(files, edit).get(path)!;
    const w = wording('zh');
    const added = `## ${w.beforeYouStartTitle}\n\n${w.stepBeforeYouStart.join('\n')}\n\n`;
    expect(text).toBe(files.get(path)!.replace('## CAPTURE SEQUENCE:', `${added}## CAPTURE SEQUENCE:`));
    expect(bmadStepImproved(text, w)).toBeNull();
  });

  it('puts "Before you start" before the first section of a step with no task or goal heading', () => {
    const md = '---\nschemaVersion: "1.1"\norigin: "bmad-method"\n---\n\n# Wrap up\n\nSay goodbye.\n\n## EXIT PROTOCOLS:\n\n- Thank the user\n';
    const improved = bmadStepImproved(md, wording('en'))!;
    expect(improved.kind).toBe('before');
    expect(improved.markdown).toBe(md.replace('## EXIT PROTOCOLS:', `## Before you start\n\n${wording('en').stepBeforeYouStart.join('\n')}\n\n## EXIT PROTOCOLS:`));
  });
});

describe('the text edits', () => {
  it('turns a paragraph into one checklist entry per sentence, in Chinese too', () => {
    const md = '---\nschemaVersion: "1.1"\n---\n\n# S\n\n## Goal\n\nG.\n\n## Instructions\n\nAsk the owner. Check the file.\n';
    expect(checklistStep(md, 'Do this:')).toContain('Do this:\n\n1. [ ] Ask the owner.\n2. [ ] Check the file.\n');
    const zh = md.replace('Ask the owner. Check the file.', '询问负责人。检查文件。');
    expect(checklistStep(zh, '清单：')).toContain('1. [ ] 询问负责人。\n2. [ ] 检查文件。');
    expect(shorterStep('---\na: 1\n---\n\n## Goal\n\nOne. Two.\n\n## Instructions\n\n- A. B.\n- C.\n')).toBe('---\na: 1\n---\n\n## Goal\n\nOne.\n\n## Instructions\n\n- A.\n- C.\n');
  });

  it('finds a section whose heading carries a full-width suffix, as Chinese packages write it', () => {
    const md = '---\nschemaVersion: "1.1"\n---\n\n# 收集需求\n\n## Goal（目标）\n\n整理需求。\n\n## Instructions（操作说明）\n\n询问业务方。确认场景。\n';
    expect(checklistStep(md, '清单：')).toContain('## Instructions（操作说明）\n\n清单：\n\n1. [ ] 询问业务方。\n2. [ ] 确认场景。\n');
    expect(shorterStep(md.replace('整理需求。', '整理需求。写清来源。'))).toContain('## Goal（目标）\n\n整理需求。\n');
  });

  it('retargets only the transition line and adds the index line after the predecessor', () => {
    const step = '---\ntransitions:\n  - to: "b"\n    label: "next"\n---\n\nSee to: "b" in the body.\n';
    expect(retargetTransition(step, 'b', 'n')).toBe('---\ntransitions:\n  - to: "n"\n    label: "next"\n---\n\nSee to: "b" in the body.\n');
    const md = '---\nx: 1\n---\n\n## Steps Index\n\n- [a](steps/a.md): A\n- [b](steps/b.md): B\n';
    const nodes = [{ id: 'a', file: 'workflows/w/steps/a.md' }, { id: 'b', file: 'workflows/w/steps/b.md' }];
    expect(addIndexLine(md, nodes, nodes[0]!, { id: 'n', file: 'workflows/w/steps/n.md', title: 'N' })).toContain('- [a](steps/a.md): A\n- [n](steps/n.md): N\n- [b]');
  });
});
