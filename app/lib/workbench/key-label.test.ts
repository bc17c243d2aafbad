import { describe, expect, it } from 'vitest';
import { keyLabel } from './key-label.ts';

describe('keyLabel', () => {
  it('names a staged file by its path, never by its object key', () => {
    const files = [{ key: 'step:vendor-intake/capture-request', path: 'workflows/vendor-intake/steps/capture-request.md' }];
    expect(keyLabel('step:vendor-intake/capture-request', files)).toBe('workflows/vendor-intake/steps/capture-request.md');
    expect(keyLabel('asset:assets/a.md', [])).toBe('assets/a.md');
    expect(keyLabel('step:wf/node', [])).toBe('wf › node');
    expect(keyLabel('workflow:wf', [])).not.toContain('workflow:');
  });
});
