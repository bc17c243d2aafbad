import { describe, expect, it } from 'vitest';
import { ID_PATTERN, SCHEMA_VERSION_PATTERN, SEMVER_PATTERN, isDateTime, isJsonInteger } from './formats.ts';

describe('isDateTime (RFC 3339, as JSON Schema format date-time)', () => {
  it.each([
    '2026-03-02T09:30:00Z',
    '2026-03-02t09:30:00z',
    '2026-03-02 09:30:00Z',
    '2026-03-02T09:30:00.123+02:00',
    '2026-03-02T09:30:00-0530',
    '2024-02-29T00:00:00Z',
    '2026-12-31T23:59:60Z',
    '2026-12-31T22:59:60-01:00',
  ])('accepts %s', (text) => expect(isDateTime(text)).toBe(true));

  it.each([
    '',
    '2026-03-02',
    '2026-03-02T09:30:00',
    '2026-03-02T09:30Z',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-03-02T24:00:00Z',
    '2026-03-02T09:60:00Z',
    '2026-03-02T12:00:60Z',
    '2026-03-02T09:30:00+24:00',
    '2026-03-02TT09:30:00Z',
    'yesterday',
  ])('rejects %j', (text) => expect(isDateTime(text)).toBe(false));
});

describe('patterns', () => {
  it('ids start with a letter or digit and use only . _ : -', () => {
    for (const ok of ['a', '1', 'step-01', 'A.b_c:d-e']) expect(ID_PATTERN.test(ok)).toBe(true);
    for (const bad of ['', '-a', '_a', '.a', 'a b', 'a/b', 'ä']) expect(ID_PATTERN.test(bad)).toBe(false);
  });

  it('schemaVersion is 1.1 with an optional patch', () => {
    for (const ok of ['1.1', '1.1.0', '1.1.12']) expect(SCHEMA_VERSION_PATTERN.test(ok)).toBe(true);
    for (const bad of ['1', '1.2', '1.10', 'v1.1', '1.1\n', ' 1.1']) expect(SCHEMA_VERSION_PATTERN.test(bad)).toBe(false);
  });

  it('version is SemVer', () => {
    for (const ok of ['0.1.0', '1.2.3-beta.1', '1.2.3+build.5', '10.20.30-rc-1+x']) expect(SEMVER_PATTERN.test(ok)).toBe(true);
    for (const bad of ['1.2', 'v1.2.3', '1.2.3-', '1.2.3+']) expect(SEMVER_PATTERN.test(bad)).toBe(false);
  });

  it('integers are JSON Schema integers', () => {
    expect(isJsonInteger(1)).toBe(true);
    expect(isJsonInteger(1e20)).toBe(true);
    expect(isJsonInteger(1.5)).toBe(false);
    expect(isJsonInteger('1')).toBe(false);
  });
});
