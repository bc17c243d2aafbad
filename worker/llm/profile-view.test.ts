import { describe, expect, it } from 'vitest';
import { maskApiKey } from './profile-view.ts';

describe('API key mask', () => {
  it('shows the prefix before the first dash and the last four characters only', () => {
    expect(maskApiKey('sk-canary-0000-1234abcd')).toBe('sk-***abcd');
    expect(maskApiKey('sk-proj-aaaaaaaaaaaaaaaa9876')).toBe('sk-***9876');
    expect(maskApiKey('abcdefghijklmnop')).toBe('***mnop');
    expect(maskApiKey('sk-short')).toBe('sk-***');
    expect(maskApiKey('verylongprefix-aaaaaaaaaa1234')).toBe('***1234');
  });
});
