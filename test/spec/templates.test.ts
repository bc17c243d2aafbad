// The spec pack's original templates: valid except workflow.md's updatedAt: "", which is not a date-time.
import { describe, expect, it } from 'vitest';
import { loadExample } from './examples.ts';
import { parseFrontmatter, validateAgentsJson, validateStepFile, validateWorkflowMd } from '../../shared/bmad/index.ts';
import { referenceVerdict } from './reference-validator.ts';

describe('spec templates', () => {
  const templates = loadExample('_spec-templates');

  it('agents.json and step.md are schema-valid; workflow.md fails on updatedAt: ""', () => {
    const agents = JSON.parse(templates.get('agents.json')!);
    expect(referenceVerdict('agents', agents).valid).toBe(true);
    expect(validateAgentsJson(templates.get('agents.json')!).schemaFailed).toBe(false);

    const step = parseFrontmatter(templates.get('step.md')!);
    expect(step.ok && referenceVerdict('step', step.value.data).valid).toBe(true);
    expect(validateStepFile(templates.get('step.md')!).schemaFailed).toBe(false);

    const workflow = parseFrontmatter(templates.get('workflow.md')!);
    expect(workflow.ok && referenceVerdict('workflow', workflow.value.data)).toEqual({
      valid: false,
      errors: ['/updatedAt must match format "date-time"'],
    });
    const ours = validateWorkflowMd(templates.get('workflow.md')!);
    expect(ours.schemaFailed).toBe(true);
    expect(ours.errors.map((e) => [e.code, e.pointer])).toEqual([['SCHEMA_FORMAT', '/updatedAt']]);
  });
});
