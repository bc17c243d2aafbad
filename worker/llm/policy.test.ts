import { describe, expect, it } from 'vitest';
import { checkAiAllowed, checkOrgPolicy } from './policy.ts';

describe('org policy', () => {
  it('allows openai-compatible under allow-all (the default) and allow-openai-compatible-only', () => {
    expect(checkOrgPolicy({}, 'openai-compatible').type).toBe('allowed');
    expect(checkOrgPolicy({ LLM_ORG_POLICY_MODE: 'allow-all' }, 'openai-compatible').type).toBe('allowed');
    expect(checkOrgPolicy({ LLM_ORG_POLICY_MODE: 'allow-openai-compatible-only' }, 'openai-compatible').type).toBe('allowed');
  });

  it('blocks under disable-all and fails closed on an unrecognised mode', () => {
    expect(checkOrgPolicy({ LLM_ORG_POLICY_MODE: 'disable-all' }, 'openai-compatible').type).toBe('blocked');
    const typo = checkOrgPolicy({ LLM_ORG_POLICY_MODE: 'disable_all' }, 'openai-compatible');
    expect(typo.type).toBe('blocked');
    expect(typo.type === 'blocked' && typo.hints.join(' ')).toMatch(/LLM_ORG_POLICY_MODE/);
  });

  it('checkAiAllowed says no before any profile is read under disable-all or a typo', () => {
    expect(checkAiAllowed({}).type).toBe('allowed');
    expect(checkAiAllowed({ LLM_ORG_POLICY_MODE: 'allow-openai-compatible-only' }).type).toBe('allowed');
    expect(checkAiAllowed({ LLM_ORG_POLICY_MODE: 'disable-all' }).type).toBe('blocked');
    expect(checkAiAllowed({ LLM_ORG_POLICY_MODE: 'Allow-All' }).type).toBe('blocked');
  });
});
