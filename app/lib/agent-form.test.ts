import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATE, getIn, principlesToText, setIn } from './agent-form.ts';

describe('agent form model', () => {
  it('writes a path into a copy, creating the objects on the way, and removes a field set to undefined', () => {
    const before = structuredClone(AGENT_TEMPLATE);
    const named = setIn(AGENT_TEMPLATE, ['metadata', 'name'], 'Ada');
    expect(getIn(named, ['metadata', 'name'])).toBe('Ada');
    expect(AGENT_TEMPLATE).toEqual(before);
    expect(getIn(setIn({}, ['persona', 'role'], 'Reviewer'), ['persona', 'role'])).toBe('Reviewer');
    expect(setIn(named, ['metadata', 'name'], undefined).metadata).not.toHaveProperty('name');
    expect(getIn(named, ['metadata', 'name', 'deeper'])).toBeUndefined();
  });

  it('shows principles one per line, a single text as it is, anything else as nothing', () => {
    expect(principlesToText(['Be brief', 'Cite the policy'])).toBe('Be brief\nCite the policy');
    expect(principlesToText('One rule')).toBe('One rule');
    expect(principlesToText(7)).toBe('');
  });
});
