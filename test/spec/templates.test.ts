// The product's own templates (worker/store/templates.ts): what a new workflow starts with must pass
// the published schemas and our validators; a new project's agents.json (no agent yet) fails both.
import { describe, expect, it } from 'vitest';
import { EMPTY_AGENTS_JSON, newWorkflowSeed } from '../../worker/store/templates.ts';
import { parseFrontmatter, validateAgentsJson, validateGraph, validateStepFile, validateWorkflowMd } from '../../shared/bmad/index.ts';
import { referenceVerdict } from './reference-validator.ts';

describe('product templates', () => {
  const seed = newWorkflowSeed('room-booking', 'Room booking');

  it('a new workflow seed is schema-valid for ajv and for us, and its files fit together', () => {
    expect(referenceVerdict('graph', JSON.parse(seed.graphJson))).toEqual({ valid: true, errors: [] });
    const stepPaths = seed.steps.map((s) => s.path);
    expect(validateGraph(seed.graphJson, { stepPaths, agentIds: [] }).issues).toEqual([]);

    const workflow = parseFrontmatter(seed.workflowMd);
    expect(workflow.ok && referenceVerdict('workflow', workflow.value.data)).toEqual({ valid: true, errors: [] });
    expect(validateWorkflowMd(seed.workflowMd, { filePath: 'workflows/room-booking/workflow.md', nodeIds: ['start', 'end'], packagePaths: stepPaths }).issues).toEqual([]);

    expect(seed.steps.map((s) => s.nodeId)).toEqual(['start', 'end']);
    for (const step of seed.steps) {
      const parsed = parseFrontmatter(step.markdown);
      expect(parsed.ok && referenceVerdict('step', parsed.value.data), step.path).toEqual({ valid: true, errors: [] });
      expect(validateStepFile(step.markdown, { filePath: step.path, nodeId: step.nodeId }).issues, step.path).toEqual([]);
    }
  });

  it("a new project's agents.json has no agent yet: ajv and we both reject it on minItems", () => {
    expect(referenceVerdict('agents', JSON.parse(EMPTY_AGENTS_JSON))).toEqual({ valid: false, errors: ['/agents must NOT have fewer than 1 items'] });
    const ours = validateAgentsJson(EMPTY_AGENTS_JSON);
    expect(ours.schemaFailed).toBe(true);
    expect(ours.errors.map((e) => [e.code, e.pointer])).toEqual([['SCHEMA_TOO_SMALL', '/agents']]);
    // Says what to do about it, where a new project's owner meets it first.
    expect(ours.errors[0]!.message).toMatch(/^The package has no agent yet/);
    expect(ours.errors[0]!.hint).toMatch(/Agents page/);
  });
});
