import { describe, expect, it } from 'vitest';
import { buildReport, errorIssue, warningIssue } from '../bmad/issues.ts';
import type { ContractViolation } from './change-set.ts';
import { rejectedChangeSet, summarizeValidation, toChangeValidation } from './validation-result.ts';

const STEP_A = 'workflows/wf/steps/a.md';

const nodeIdMismatch = errorIssue('STEP_NODE_ID_MISMATCH', STEP_A, 'nodeId "x" differs from the node id "a".', {
  pointer: '/nodeId',
  hint: 'Set nodeId: a.',
});
const missingGoal = errorIssue('STEP_MISSING_GOAL', STEP_A, 'The step has no ## Goal section.');
const emptySection = warningIssue('STEP_EMPTY_SECTION', STEP_A, 'The Completion section is empty.', { hint: 'Write a line.' });
const agentMissing = errorIssue('AGENT_NOT_FOUND', 'workflows/wf/workflow.graph.json', 'agentId "ghost" names no agent.', {
  pointer: '/nodes/1/agentId',
});

const violation: ContractViolation = {
  code: 'AI_CHANGESET_CONTRACT_VIOLATION',
  message: 'operations[0].payload: "stepMarkdown" is required for a step upsert.',
  path: 'operations[0].payload.stepMarkdown',
  hints: ['Add "stepMarkdown" (a string).'],
};

describe('toChangeValidation', () => {
  it('maps a clean report to a validated result that never allows writing', () => {
    expect(toChangeValidation(buildReport([], false))).toEqual({
      valid: true,
      schemaFailed: false,
      errors: [],
      warnings: [],
      status: 'validated',
      meta: { allowWrite: false, errorCount: 0, warningCount: 0 },
    });
  });

  it('gives each issue a path with its pointer, its hints and its object key', () => {
    const result = toChangeValidation(buildReport([nodeIdMismatch, missingGoal, emptySection], false), {
      keyOfPath: (path) => (path === STEP_A ? 'step:wf/a' : undefined),
    });
    expect(result.valid).toBe(false);
    expect(result.status).toBe('rejected');
    expect(result.errors).toEqual([
      {
        code: 'STEP_NODE_ID_MISMATCH',
        message: 'nodeId "x" differs from the node id "a".',
        path: 'workflows/wf/steps/a.md#/nodeId',
        hints: ['Set nodeId: a.'],
        severity: 'error',
        objectKey: 'step:wf/a',
      },
      { code: 'STEP_MISSING_GOAL', message: 'The step has no ## Goal section.', path: STEP_A, hints: [], severity: 'error', objectKey: 'step:wf/a' },
    ]);
    expect(result.warnings).toEqual([
      { code: 'STEP_EMPTY_SECTION', message: 'The Completion section is empty.', path: STEP_A, hints: ['Write a line.'], severity: 'warning', objectKey: 'step:wf/a' },
    ]);
    expect(result.meta).toEqual({ allowWrite: false, errorCount: 2, warningCount: 1 });
  });

  it('demotes errors the stored package already had to pre-existing warnings', () => {
    const baseline = buildReport([agentMissing, emptySection], false);
    const effective = buildReport([agentMissing, missingGoal, emptySection], false);
    const result = toChangeValidation(effective, { baseline });
    expect(result.errors.map((e) => e.code)).toEqual(['STEP_MISSING_GOAL']);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'STEP_EMPTY_SECTION', severity: 'warning' }),
      {
        code: 'AGENT_NOT_FOUND',
        message: 'agentId "ghost" names no agent.',
        path: 'workflows/wf/workflow.graph.json#/nodes/1/agentId',
        hints: [],
        severity: 'warning',
        preExisting: true,
      },
    ]);
    expect(result.warnings[0]).not.toHaveProperty('preExisting');
  });

  it('is valid when every remaining error pre-existed', () => {
    const result = toChangeValidation(buildReport([agentMissing], false), { baseline: buildReport([agentMissing], false) });
    expect([result.valid, result.status, result.errors.length, result.warnings.length]).toEqual([true, 'validated', 0, 1]);
  });

  it('demotes only as many copies of an error as the baseline had, and only exact matches', () => {
    const samePlaceOtherMessage = { ...agentMissing, message: 'agentId "phantom" names no agent.' };
    const result = toChangeValidation(buildReport([agentMissing, agentMissing, samePlaceOtherMessage], false), {
      baseline: buildReport([agentMissing], false),
    });
    expect(result.errors.map((e) => e.message)).toEqual(['agentId "ghost" names no agent.', 'agentId "phantom" names no agent.']);
    expect(result.warnings.map((w) => w.preExisting)).toEqual([true]);
  });

  it('demotes nothing when stage 1 failed, since the later stages did not run', () => {
    const broken = errorIssue('JSON_PARSE_ERROR', 'agents.json', 'agents.json is not valid JSON.');
    const result = toChangeValidation(buildReport([broken], true), { baseline: buildReport([broken], true) });
    expect([result.valid, result.schemaFailed, result.errors.length]).toEqual([false, true, 1]);
  });

  it('lists change-set violations first and rejects on any of them', () => {
    const legacy: ContractViolation = { code: 'AI_CHANGESET_LEGACY_SHAPE', message: 'Older shape.', path: '', hints: [] };
    const result = toChangeValidation(buildReport([emptySection], false), { extraErrors: [violation], extraWarnings: [legacy] });
    expect(result.valid).toBe(false);
    expect(result.status).toBe('rejected');
    expect(result.errors).toEqual([{ ...violation, severity: 'error' }]);
    expect(result.warnings.map((w) => w.code)).toEqual(['AI_CHANGESET_LEGACY_SHAPE', 'STEP_EMPTY_SECTION']);
  });
});

describe('rejectedChangeSet', () => {
  it('reports a change set that broke the contract as a failed shape check', () => {
    expect(rejectedChangeSet([violation])).toEqual({
      valid: false,
      schemaFailed: true,
      errors: [{ ...violation, severity: 'error' }],
      warnings: [],
      status: 'rejected',
      meta: { allowWrite: false, errorCount: 1, warningCount: 0 },
    });
  });
});

describe('summarizeValidation', () => {
  it('counts errors and warnings in words', () => {
    expect(summarizeValidation(toChangeValidation(buildReport([], false)))).toBe('valid');
    expect(summarizeValidation(toChangeValidation(buildReport([emptySection, emptySection], false)))).toBe('valid, 2 warnings');
    expect(summarizeValidation(toChangeValidation(buildReport([missingGoal, nodeIdMismatch, agentMissing, emptySection], false)))).toBe(
      '3 errors, 1 warning',
    );
    expect(summarizeValidation(rejectedChangeSet([violation]))).toBe('1 error');
  });
});
