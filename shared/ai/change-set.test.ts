// Over 400 lines on purpose: the changeSet contract case by case (both shapes), one describe block per rule.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChangeSet, operationKeys, parseChangeSet } from './change-set.ts';
import { MAX_CHANGE_OPERATIONS } from './change-set-fields.ts';
import type { ChangeOperation, ChangeSetParse, ContractViolation } from './change-set.ts';

const STEP = '---\nschemaVersion: "1.1"\nnodeId: step-01\ntype: step\n---\n\n## Goal\nAsk.\n\n## Instructions\nAsk the user.\n';

function stepUpsert(nodeId = 'step-01', workflowId = 'wf') {
  return { op: 'upsert', targetType: 'step', target: { workflowId, nodeId }, payload: { stepMarkdown: STEP } };
}

function assetUpsert(path: string, content = 'Policy text.') {
  return { op: 'upsert', targetType: 'asset', target: { path }, payload: { content } };
}

function changeSet(operations: unknown[], extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: '1.0',
    targetType: 'step',
    mode: 'optimize',
    operations,
    impact: { objects: ['step:wf/step-01'], riskFlags: [], requiresConfirmation: true },
    ...extra,
  };
}

function errorsOf(result: ChangeSetParse): ContractViolation[] {
  if (result.ok) throw new Error(`expected a rejected change set, got ${JSON.stringify(result.changeSet)}`);
  return result.errors;
}

const summary = (violations: ContractViolation[]) => violations.map((v) => [v.code, v.path]);

describe('parseChangeSet: the current shape', () => {
  it('accepts a step change with an asset and returns it unchanged', () => {
    const input = changeSet([{ ...stepUpsert(), reason: 'Clearer goal' }, assetUpsert('assets/policies/x.md')], {
      impact: {
        objects: ['step:wf/step-01', 'asset:assets/policies/x.md'],
        counts: { workflow: 0, step: 1, agent: 0, asset: 1 },
        riskFlags: [],
        requiresConfirmation: true,
      },
      revisions: { workflowRevision: 10, agentsRevision: 3, assetsRevision: 7 },
      extensions: { model: 'any', notes: ['free form'] },
    });
    expect(parseChangeSet(input)).toEqual({ ok: true, changeSet: input, warnings: [] });
  });

  it('accepts the change set as JSON text', () => {
    const input = changeSet([stepUpsert()]);
    expect(parseChangeSet(JSON.stringify(input))).toEqual({ ok: true, changeSet: input, warnings: [] });
  });

  it('accepts every kind of operation', () => {
    const result = parseChangeSet(
      changeSet([
        { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { workflowMd: '---\n---\n' } },
        stepUpsert('step-02'),
        { op: 'delete', targetType: 'step', target: { workflowId: 'wf', nodeId: 'step-03' } },
        { op: 'upsert', targetType: 'agent', target: { agentId: 'writer' }, payload: { agent: { id: 'writer', metadata: {} } } },
        { op: 'upsert', targetType: 'agent', target: { agentId: 'editor' }, payload: { agent: { metadata: {} } } },
        { op: 'delete', targetType: 'agent', target: { agentId: 'old' } },
        assetUpsert('assets/a.md'),
        { op: 'delete', targetType: 'asset', target: { path: 'assets/b.yaml' }, extensions: { why: 'unused' } },
      ]),
    );
    expect(result.ok).toBe(true);
  });

  it('serializes a graph given as an object, pretty-printed with a final newline', () => {
    const graph = { schemaVersion: '1.1', entryNodeId: 'a', nodes: [], edges: [] };
    const result = parseChangeSet(
      changeSet([{ op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { graphJson: graph } }], {
        targetType: 'workflow',
      }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const [op] = result.changeSet.operations;
    expect(op?.targetType === 'workflow' && op.payload.graphJson).toBe(JSON.stringify(graph, null, 2) + '\n');
  });

  it('is describable as a JSON Schema for the model', () => {
    const schema = z.toJSONSchema(ChangeSet) as { properties: Record<string, { description?: string }>; additionalProperties: unknown };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(['schemaVersion', 'targetType', 'mode', 'operations', 'impact', 'revisions', 'extensions']);
    expect(schema.properties.operations?.description).toMatch(/at most 200/u);
  });
});

describe('parseChangeSet: shape violations', () => {
  it('requires a payload for an upsert, naming the missing field', () => {
    const errors = errorsOf(parseChangeSet(changeSet([{ ...stepUpsert(), payload: {} }])));
    expect(errors).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[0].payload: "stepMarkdown" is required for a step upsert.',
        path: 'operations[0].payload.stepMarkdown',
        hints: ['Add "stepMarkdown" (a string).'],
      },
    ]);
    const missing = errorsOf(parseChangeSet(changeSet([{ op: 'upsert', targetType: 'asset', target: { path: 'assets/a.md' } }])));
    expect(missing.map((e) => e.message)).toEqual(['operations[0]: "payload" is required for an asset upsert.']);
  });

  it('forbids a payload on a delete', () => {
    const errors = errorsOf(
      parseChangeSet(changeSet([{ op: 'delete', targetType: 'step', target: { workflowId: 'wf', nodeId: 'a' }, payload: { stepMarkdown: '' } }])),
    );
    expect(errors).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[0]: "payload" is not allowed for a step delete.',
        path: 'operations[0].payload',
        hints: ['A delete needs only op, targetType and target.'],
      },
    ]);
  });

  it('rejects unknown fields everywhere except inside extensions; a malformed impact is only a warning', () => {
    const result = parseChangeSet(
      changeSet([{ ...stepUpsert(), target: { workflowId: 'wf', nodeId: 'a', file: 'x.md' }, note: 1, extensions: { note: 1 } }], {
        comment: 'hi',
        impact: { objects: [], extra: true },
        extensions: { anything: { goes: true } },
      }),
    );
    const errors = errorsOf(result);
    expect(summary(errors)).toEqual([
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].target.file'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].note'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'comment'],
    ]);
    expect(summary(result.warnings)).toEqual([['AI_IMPACT_DISAGREES', 'impact.extra']]);
    expect(errors[0]?.hints).toEqual(['Allowed fields here: workflowId, nodeId. Remove it.']);
    expect(errors[1]?.hints).toEqual(['Allowed fields here: op, targetType, target, payload, reason. Put anything else inside "extensions".']);
  });

  it('checks the targets of each operation kind', () => {
    const errors = errorsOf(
      parseChangeSet(
        changeSet([
          { op: 'upsert', targetType: 'step', target: { workflowId: 'wf' }, payload: { stepMarkdown: 'x' } },
          { op: 'delete', targetType: 'agent', target: { path: 'assets/a.md' } },
          { op: 'delete', targetType: 'asset', target: { agentId: 'a' } },
          { op: 'upsert', targetType: 'workflow', target: { workflowId: 'bad id' }, payload: { workflowMd: 'x' } },
        ]),
      ),
    );
    expect(summary(errors)).toEqual([
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].target.nodeId'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[1].target.agentId'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[1].target.path'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[2].target.path'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[2].target.agentId'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[3].target.workflowId'],
    ]);
    expect(errors[5]?.message).toBe('operations[3].target.workflowId is not a valid id: "bad id".');
  });

  it('rejects an unknown operation kind or target type with the allowed values', () => {
    const errors = errorsOf(
      parseChangeSet(changeSet([{ ...stepUpsert(), op: 'replace' }, { ...stepUpsert(), targetType: 'node' }, { target: {} }])),
    );
    expect(errors).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[0].op must be one of "upsert", "delete", but it is "replace".',
        path: 'operations[0].op',
        hints: ['Allowed values: "upsert", "delete".'],
      },
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[1].targetType must be one of "workflow", "step", "agent", "asset", but it is "node".',
        path: 'operations[1].targetType',
        hints: ['Allowed values: "workflow", "step", "agent", "asset".'],
      },
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[2]: "targetType" is required.',
        path: 'operations[2].targetType',
        hints: ['Allowed values: "workflow", "step", "agent", "asset".'],
      },
    ]);
  });

  it('requires a workflow upsert to carry workflowMd or graphJson', () => {
    const errors = errorsOf(
      parseChangeSet(
        changeSet(
          [
            { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: {} },
            { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf2' }, payload: { graphJson: 42 } },
          ],
          { targetType: 'workflow' },
        ),
      ),
    );
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['operations[0].payload', 'operations[0].payload: A workflow upsert needs "workflowMd", "graphJson" or both.'],
      ['operations[1].payload.graphJson', 'operations[1].payload.graphJson must be a string or an object, but it is a whole number.'],
    ]);
  });

  it('requires schemaVersion, targetType, mode and operations (impact is optional: the system derives it)', () => {
    const errors = errorsOf(parseChangeSet({ extensions: {} }));
    expect(errors.map((e) => e.message)).toEqual([
      '"schemaVersion" is required.',
      '"targetType" is required.',
      '"mode" is required.',
      '"operations" is required.',
    ]);
    expect(errors.every((e) => e.code === 'AI_CHANGESET_CONTRACT_VIOLATION')).toBe(true);
  });

  it('checks revisions; a malformed impact is dropped with warnings instead of refusing the change set', () => {
    const result = parseChangeSet(
      changeSet([stepUpsert()], {
        impact: { objects: ['step-01', 'step:wf/step-01'], counts: { step: -1 }, riskFlags: 'none', requiresConfirmation: 'yes' },
        revisions: { workflowRevision: 1.5, agentsRevision: -2, assetsRevision: '7' },
      }),
    );
    expect(summary(errorsOf(result))).toEqual([
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'revisions.workflowRevision'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'revisions.agentsRevision'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'revisions.assetsRevision'],
    ]);
    expect(summary(result.warnings)).toEqual([
      ['AI_IMPACT_DISAGREES', 'impact.objects[0]'],
      ['AI_IMPACT_DISAGREES', 'impact.counts.step'],
      ['AI_IMPACT_DISAGREES', 'impact.riskFlags'],
      ['AI_IMPACT_DISAGREES', 'impact.requiresConfirmation'],
    ]);
    expect(result.warnings[0]?.message).toBe('impact.objects[0]: "step-01" does not name a package object. The declared impact was ignored; the system derives it.');
  });

  it('stages without any impact, and without the malformed one', () => {
    const { impact: _impact, ...bare } = changeSet([stepUpsert()]);
    void _impact;
    const plain = parseChangeSet(bare);
    expect(plain.ok && plain.changeSet.impact).toBe(undefined);
    const dropped = parseChangeSet(changeSet([stepUpsert()], { impact: { objects: ['step:classify'] } }));
    expect(dropped.ok).toBe(true);
    expect(dropped.ok && dropped.changeSet.impact).toBe(undefined);
  });

  it('caps the number of operations and the size of each text', () => {
    const many = Array.from({ length: MAX_CHANGE_OPERATIONS + 1 }, (_, i) => stepUpsert(`s${i}`));
    expect(summary(errorsOf(parseChangeSet(changeSet(many))))).toEqual([['AI_CHANGESET_CONTRACT_VIOLATION', 'operations']]);
    expect(summary(errorsOf(parseChangeSet(changeSet([]))))).toEqual([['AI_CHANGESET_CONTRACT_VIOLATION', 'operations']]);

    const big = 'x'.repeat(512 * 1024 + 1);
    const errors = errorsOf(
      parseChangeSet(
        changeSet([
          assetUpsert('assets/big.md', big),
          { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { graphJson: big } },
          { op: 'upsert', targetType: 'agent', target: { agentId: 'a' }, payload: { agent: { id: 'a', systemPrompt: big } } },
        ]),
      ),
    );
    expect(summary(errors)).toEqual([
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].payload.content'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[1].payload.graphJson'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[2].payload.agent'],
    ]);
    expect(errors[0]?.message).toMatch(/at most 512 KiB/u);
    // Exactly at the limit is fine.
    expect(parseChangeSet(changeSet([assetUpsert('assets/big.md', 'x'.repeat(512 * 1024))])).ok).toBe(true);
  });

  it('reports input that is not JSON, or not an object', () => {
    expect(errorsOf(parseChangeSet('{"schemaVersion": '))).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'The change set is not valid JSON.',
        path: '',
        hints: ['Send exactly one JSON object, with nothing around it.'],
      },
    ]);
    expect(errorsOf(parseChangeSet('[1]')).map((e) => e.message)).toEqual(['The change set must be a JSON object, but it is a list.']);
    expect(errorsOf(parseChangeSet(null)).map((e) => e.message)).toEqual(['The change set must be a JSON object, but it is null.']);
  });

  it('refuses another schemaVersion with AI_CHANGESET_SCHEMA_UNSUPPORTED', () => {
    for (const version of ['2.0', 1, '1.1']) {
      expect(summary(errorsOf(parseChangeSet(changeSet([stepUpsert()], { schemaVersion: version }))))).toEqual([
        ['AI_CHANGESET_SCHEMA_UNSUPPORTED', 'schemaVersion'],
      ]);
    }
  });
});

describe('parseChangeSet: contract rules', () => {
  it.each([['assets/../x.md'], ['/etc/passwd'], ['assets\\x.md'], ['assets/x.exe'], ['notes/x.md'], ['']])(
    'rejects the asset path %j with ASSET_INVALID_PATH',
    (path) => {
      const errors = errorsOf(parseChangeSet(changeSet([assetUpsert(path)])));
      expect(summary(errors)).toEqual([['ASSET_INVALID_PATH', 'operations[0].target.path']]);
      expect(errors[0]?.hints).toHaveLength(1);
    },
  );

  it('rejects an unsafe path in a delete too', () => {
    const errors = errorsOf(parseChangeSet(changeSet([{ op: 'delete', targetType: 'asset', target: { path: 'assets/../../secrets.md' } }])));
    expect(summary(errors)).toEqual([['ASSET_INVALID_PATH', 'operations[0].target.path']]);
  });

  it('refuses to delete a whole workflow with AI_APPLY_UNSUPPORTED', () => {
    const errors = errorsOf(parseChangeSet(changeSet([{ op: 'delete', targetType: 'workflow', target: { workflowId: 'wf' } }])));
    expect(errors).toEqual([
      {
        code: 'AI_APPLY_UNSUPPORTED',
        message: 'Deleting a whole workflow through the AI is not supported.',
        path: 'operations[0]',
        hints: ['Delete the workflow yourself from the project page, or change its steps instead.'],
      },
    ]);
  });

  it('rejects two operations on the same object', () => {
    const errors = errorsOf(
      parseChangeSet(
        changeSet([
          stepUpsert('a'),
          { op: 'delete', targetType: 'step', target: { workflowId: 'wf', nodeId: 'a' } },
          { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { workflowMd: 'x', graphJson: '{}' } },
          { op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { graphJson: '{}' } },
        ]),
      ),
    );
    expect(errors).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[1] changes step:wf/a, which operations[0] already changes.',
        path: 'operations[1]',
        hints: ['Change each object in one operation only: merge the two.'],
      },
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'operations[3] changes graph:wf, which operations[2] already changes.',
        path: 'operations[3]',
        hints: ['Change each object in one operation only: merge the two.'],
      },
    ]);
  });

  it('never lets an agent optimize change the agentId', () => {
    const input = changeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'writer' }, payload: { agent: { id: 'author', metadata: {} } } }],
      { targetType: 'agent', impact: { objects: ['agent:writer'] } },
    );
    const errors = errorsOf(parseChangeSet(input, { targetType: 'agent', mode: 'optimize' }));
    expect(summary(errors)).toEqual([['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].payload.agent.id']]);
    expect(errors[0]?.message).toMatch(/^Optimizing an agent never changes its agentId\./u);
    expect(errors[0]?.hints).toEqual(['Set "id" to "writer", or leave it out.']);
  });

  it('requires an agent id that matches its target in any mode', () => {
    const input = changeSet(
      [{ op: 'upsert', targetType: 'agent', target: { agentId: 'writer' }, payload: { agent: { id: 'author' } } }],
      { targetType: 'agent', mode: 'create', impact: { objects: ['agent:writer'] } },
    );
    const errors = errorsOf(parseChangeSet(input));
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['operations[0].payload.agent.id', 'operations[0].payload.agent.id ("author") must equal target.agentId ("writer").'],
    ]);
  });

  it('reports a target type or mode that differs from the session with AI_TARGET_CONTEXT_MISMATCH', () => {
    const input = changeSet([stepUpsert()]);
    expect(parseChangeSet(input, { targetType: 'step', mode: 'optimize' }).ok).toBe(true);
    const errors = errorsOf(parseChangeSet(input, { targetType: 'agent', mode: 'create' }));
    expect(errors).toEqual([
      {
        code: 'AI_TARGET_CONTEXT_MISMATCH',
        message: 'The change set targets a step, but this session works on an agent.',
        path: 'targetType',
        hints: ['Set "targetType" to "agent".'],
      },
      {
        code: 'AI_TARGET_CONTEXT_MISMATCH',
        message: 'The change set is in optimize mode, but this session is in create mode.',
        path: 'mode',
        hints: ['Set "mode" to "create".'],
      },
    ]);
  });

  it('reports every violation of one change set in a single parse', () => {
    const input = changeSet(
      [
        { ...stepUpsert(), payload: {} },
        assetUpsert('assets/../x.md'),
        { op: 'delete', targetType: 'workflow', target: { workflowId: 'wf' } },
        stepUpsert('b'),
        stepUpsert('b'),
        { op: 'upsert', targetType: 'agent', target: { agentId: 'a' }, payload: { agent: { id: 'b' } } },
      ],
      { targetType: 'agent', stray: true },
    );
    const errors = errorsOf(parseChangeSet(input, { targetType: 'agent', mode: 'create' }));
    expect(summary(errors)).toEqual([
      ['AI_APPLY_UNSUPPORTED', 'operations[2]'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0].payload.stepMarkdown'],
      ['ASSET_INVALID_PATH', 'operations[1].target.path'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'stray'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[4]'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[5].payload.agent.id'],
      ['AI_TARGET_CONTEXT_MISMATCH', 'mode'],
    ]);
    expect(errors[5]?.message).toMatch(/^Optimizing an agent never changes its agentId/u);
  });
});

describe('parseChangeSet: the original product’s older shape', () => {
  const legacy = {
    targetType: 'step',
    mode: 'optimize',
    changeSet: {
      steps: [{ nodeId: 'step-01', workflowId: 7, stepMarkdown: STEP, reason: 'Clearer goal' }],
      agents: { upsert: [{ id: 'writer', metadata: { name: 'W' } }], delete: ['old-agent'] },
      assets: { upsert: [{ path: 'assets/policies/x.md', content: 'Policy.' }], delete: ['assets/old.md', { path: 'assets/older.md' }] },
    },
    impact: { updated: ['step:7/step-01', 'asset:assets/policies/x.md'], risks: ['changes wording'], requiresConfirmation: true },
  };
  const current = {
    schemaVersion: '1.0',
    targetType: 'step',
    mode: 'optimize',
    operations: [
      { op: 'upsert', targetType: 'step', target: { workflowId: '7', nodeId: 'step-01' }, payload: { stepMarkdown: STEP }, reason: 'Clearer goal' },
      { op: 'upsert', targetType: 'agent', target: { agentId: 'writer' }, payload: { agent: { id: 'writer', metadata: { name: 'W' } } } },
      { op: 'delete', targetType: 'agent', target: { agentId: 'old-agent' } },
      { op: 'upsert', targetType: 'asset', target: { path: 'assets/policies/x.md' }, payload: { content: 'Policy.' } },
      { op: 'delete', targetType: 'asset', target: { path: 'assets/old.md' } },
      { op: 'delete', targetType: 'asset', target: { path: 'assets/older.md' } },
    ],
    impact: { objects: ['step:7/step-01', 'asset:assets/policies/x.md'], riskFlags: ['changes wording'], requiresConfirmation: true },
  };

  it('normalises it to the same change set as the current shape, with a deprecation warning', () => {
    const fromLegacy = parseChangeSet(legacy);
    const fromCurrent = parseChangeSet(current);
    if (!fromLegacy.ok || !fromCurrent.ok) throw new Error('expected both to parse');
    expect(fromLegacy.changeSet).toEqual(fromCurrent.changeSet);
    expect(fromCurrent.warnings).toEqual([]);
    expect(fromLegacy.warnings).toEqual([
      expect.objectContaining({ code: 'AI_CHANGESET_LEGACY_SHAPE', path: '', hints: [expect.any(String)] }),
    ]);
  });

  it('accepts steps[] at the top level without the changeSet wrapper', () => {
    const { changeSet: changes, ...rest } = legacy;
    const result = parseChangeSet({ ...rest, ...changes });
    const fromCurrent = parseChangeSet(current);
    if (!result.ok || !fromCurrent.ok) throw new Error('expected both to parse');
    expect(result.changeSet).toEqual(fromCurrent.changeSet);
    expect(result.warnings.map((w) => w.code)).toEqual(['AI_CHANGESET_LEGACY_SHAPE']);
  });

  it('reports violations at the paths the sender wrote', () => {
    const result = parseChangeSet({
      targetType: 'step',
      mode: 'optimize',
      changeSet: {
        steps: [{ nodeId: 'step 01', workflowId: 'wf', stepMarkdown: STEP, extra: 1 }],
        assets: { delete: ['assets\\x.md', { path: '/etc/passwd' }] },
        agents: { upsert: [{ metadata: {} }] },
      },
    });
    expect(result.warnings.map((w) => w.code)).toEqual(['AI_CHANGESET_LEGACY_SHAPE']);
    expect(summary(errorsOf(result))).toEqual([
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'changeSet.steps[0].nodeId'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'changeSet.steps[0].extra'],
      ['ASSET_INVALID_PATH', 'changeSet.assets.delete[0]'],
      ['ASSET_INVALID_PATH', 'changeSet.assets.delete[1].path'],
      ['AI_CHANGESET_CONTRACT_VIOLATION', 'changeSet.agents.upsert[0].id'],
    ]);
  });

  it('refuses deleting (or renaming through delete + upsert) an agent in an agent optimize', () => {
    const rename = parseChangeSet(
      {
        schemaVersion: '1.0',
        targetType: 'agent',
        mode: 'optimize',
        operations: [
          { op: 'delete', targetType: 'agent', target: { agentId: 'auditor' } },
          { op: 'upsert', targetType: 'agent', target: { agentId: 'auditor-2' }, payload: { agent: { id: 'auditor-2', metadata: {} } } },
        ],
        impact: { objects: ['agent:auditor', 'agent:auditor-2'] },
      },
      { targetType: 'agent', mode: 'optimize' },
    );
    expect(errorsOf(rename).map((e) => [e.code, e.path])).toEqual([['AI_CHANGESET_CONTRACT_VIOLATION', 'operations[0]']]);
  });

  it('applies the contract rules to the converted operations, pointing at the legacy entries', () => {
    const result = parseChangeSet(
      { targetType: 'agent', mode: 'optimize', agents: { upsert: [{ id: 'writer' }], delete: ['writer'] }, impact: { updated: ['agent:writer'] } },
      { targetType: 'agent', mode: 'optimize' },
    );
    expect(errorsOf(result)).toEqual([
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'agents.delete[0] changes agent:writer, which agents.upsert[0] already changes.',
        path: 'agents.delete[0]',
        hints: ['Change each object in one operation only: merge the two.'],
      },
      {
        code: 'AI_CHANGESET_CONTRACT_VIOLATION',
        message: 'Optimizing an agent never removes or renames one: agents.delete[0] deletes "writer".',
        path: 'agents.delete[0]',
        hints: ['Upsert the agent under its own agentId with the improved definition instead.'],
      },
    ]);
  });

  it('checks the legacy target type against the session', () => {
    const result = parseChangeSet(legacy, { targetType: 'asset' });
    expect(summary(errorsOf(result))).toEqual([['AI_TARGET_CONTEXT_MISMATCH', 'targetType']]);
  });
});

describe('operationKeys', () => {
  const keysOf = (op: unknown) => {
    const parsed = parseChangeSet(changeSet([op]));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return operationKeys(parsed.changeSet.operations[0] as ChangeOperation);
  };

  it('names the object keys each operation writes', () => {
    expect(keysOf(stepUpsert('step-01', 'wf'))).toEqual(['step:wf/step-01']);
    expect(keysOf({ op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { workflowMd: 'x' } })).toEqual(['workflow:wf']);
    expect(keysOf({ op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { graphJson: {} } })).toEqual(['graph:wf']);
    expect(
      keysOf({ op: 'upsert', targetType: 'workflow', target: { workflowId: 'wf' }, payload: { workflowMd: 'x', graphJson: '{}' } }),
    ).toEqual(['workflow:wf', 'graph:wf']);
    expect(keysOf({ op: 'delete', targetType: 'agent', target: { agentId: 'writer' } })).toEqual(['agent:writer']);
    expect(keysOf(assetUpsert('assets/policies/x.md'))).toEqual(['asset:assets/policies/x.md']);
  });
});
