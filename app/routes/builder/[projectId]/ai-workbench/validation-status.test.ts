import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import ValidationStatus from './ValidationStatus.svelte';
import type { ChangeValidation } from '../../../../../shared/ai/validation-result.ts';

const warning = (path: string, message: string, hint?: string) => ({ code: 'X_WARN', message, path, hints: hint ? [hint] : [], severity: 'warning' as const });

describe('ValidationStatus', () => {
  it('lists every warning with its file and message', () => {
    const validation: ChangeValidation = {
      valid: true,
      schemaFailed: false,
      errors: [],
      warnings: [warning('workflows/a/steps/one.md', 'Step one has no description.'), warning('assets/b.md', 'Asset b is not used.')],
      status: 'validated',
      meta: { allowWrite: false, errorCount: 0, warningCount: 2 },
    };
    const { body } = render(ValidationStatus, { props: { validation } });
    expect(body).toContain('data-testid="validation-warnings"');
    expect(body).toContain('workflows/a/steps/one.md');
    expect(body).toContain('Step one has no description.');
    expect(body).toContain('assets/b.md');
    expect(body).toContain('Asset b is not used.');
  });

  it('keeps a message and its hint apart', () => {
    const validation: ChangeValidation = {
      valid: false,
      schemaFailed: false,
      errors: [{ code: 'X_ERR', message: 'The edge points at x, which is not a node.', path: 'workflows/a/graph.json', hints: ['Point the edge at a node.'], severity: 'error' }],
      warnings: [],
      status: 'rejected',
      meta: { allowWrite: false, errorCount: 1, warningCount: 0 },
    };
    const { body } = render(ValidationStatus, { props: { validation } });
    const text = body.replace(/<!--[^>]*-->/g, '').replace(/<[^>]+>/g, '');
    expect(text).not.toContain('node.Point');
    expect(body).toMatch(/data-testid="validation-hint"[^>]*>Point the edge at a node\./u);
  });
});
