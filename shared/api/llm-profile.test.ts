import { describe, expect, it } from 'vitest';
import { checkLlmProfileInput, LlmProfileInput } from './llm-profile.ts';

const full = { provider: 'openai-compatible', baseUrl: ' https://api.example.com/v1 ', model: ' gpt-4o-mini ' };

describe('checkLlmProfileInput', () => {
  it('trims, applies the default timeout and keeps the rest', () => {
    expect(checkLlmProfileInput(full)).toEqual({
      type: 'valid',
      profile: {
        provider: 'openai-compatible',
        preset: null,
        baseUrl: 'https://api.example.com/v1',
        model: 'gpt-4o-mini',
        timeoutSeconds: 60,
        contextWindow: null,
      },
    });
  });

  it('needs nothing but the provider to turn AI off', () => {
    expect(checkLlmProfileInput({ provider: 'disabled' })).toMatchObject({ type: 'valid', profile: { provider: 'disabled', baseUrl: null } });
  });

  it.each([
    [{ ...full, provider: 'azure' }, 'LLM_PROFILE_INVALID_PROVIDER'],
    [{ ...full, provider: undefined }, 'LLM_PROFILE_INVALID_PROVIDER'],
    [{ ...full, baseUrl: '' }, 'LLM_PROFILE_MISSING_BASE_URL'],
    [{ ...full, baseUrl: null }, 'LLM_PROFILE_MISSING_BASE_URL'],
    [{ ...full, model: '  ' }, 'LLM_PROFILE_MISSING_MODEL'],
    [{ ...full, timeoutSeconds: 4 }, 'LLM_PROFILE_INVALID_TIMEOUT'],
    [{ ...full, timeoutSeconds: 601 }, 'LLM_PROFILE_INVALID_TIMEOUT'],
    [{ ...full, timeoutSeconds: 30.5 }, 'LLM_PROFILE_INVALID_TIMEOUT'],
  ])('answers %j with %s, a message and a hint', (input, code) => {
    const result = checkLlmProfileInput(input);
    expect(result.type).toBe('invalid');
    if (result.type === 'invalid') {
      expect(result.problem.code).toBe(code);
      expect(result.problem.message.length).toBeGreaterThan(10);
      expect(result.problem.hint.length).toBeGreaterThan(10);
    }
  });

  it('accepts the bounds of the timeout', () => {
    expect(checkLlmProfileInput({ ...full, timeoutSeconds: 5 }).type).toBe('valid');
    expect(checkLlmProfileInput({ ...full, timeoutSeconds: 600 }).type).toBe('valid');
  });
});

describe('LlmProfileInput', () => {
  it('is strict and keeps absent apart from null for the key', () => {
    expect(LlmProfileInput.safeParse({ ...full, surprise: 1 }).success).toBe(false);
    expect(LlmProfileInput.parse(full)).not.toHaveProperty('apiKey');
    expect(LlmProfileInput.parse({ ...full, apiKey: null }).apiKey).toBeNull();
    expect(LlmProfileInput.safeParse({ ...full, apiKey: 'sk-has space' }).success).toBe(false);
    expect(LlmProfileInput.safeParse({ ...full, apiKey: 'sk-ünicode' }).success).toBe(false);
  });
});
