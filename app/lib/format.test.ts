import { describe, expect, it } from 'vitest';
import { formatBytes, formatDate } from './format.ts';

describe('formatBytes', () => {
  it('uses binary units, one decimal below ten, none from ten on', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(10 * 1024)).toBe('10 KiB');
    expect(formatBytes(5.5 * 1024 ** 2)).toBe('5.5 MiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GiB');
  });

  it('stays in GiB past the largest unit', () => {
    expect(formatBytes(2048 * 1024 ** 3)).toBe('2048 GiB');
  });
});

describe('formatDate', () => {
  it('formats an ISO date for reading, with its year', () => {
    const shown = formatDate('2026-03-04T05:06:07.000Z');
    expect(shown).not.toBe('2026-03-04T05:06:07.000Z');
    expect(shown).toContain('2026');
  });

  it('shows an unreadable date as it came instead of "Invalid Date"', () => {
    expect(formatDate('yesterday-ish')).toBe('yesterday-ish');
    expect(formatDate('')).toBe('');
  });
});

describe('in the interface language', () => {
  it('formats dates, numbers and relative times in Chinese after a switch, and back', async () => {
    const { useLocale } = await import('./i18n/i18n.svelte.ts');
    const { formatNumber, formatRelative } = await import('./format.ts');
    const now = Date.parse('2026-03-04T12:00:00.000Z');
    await useLocale('zh');
    try {
      expect(formatDate('2026-03-04T05:06:07.000Z')).toMatch(/2026年/);
      expect(formatRelative('2026-03-04T11:57:00.000Z', now)).toBe('3分钟前');
      expect(formatNumber(1234567)).toBe('1,234,567');
    } finally {
      await useLocale('en');
    }
    expect(formatRelative('2026-03-04T11:57:00.000Z', now)).toBe('3 minutes ago');
    expect(formatRelative('2026-03-02T12:00:00.000Z', now)).toBe('2 days ago');
    expect(formatDate('2026-03-04T05:06:07.000Z')).not.toMatch(/年/);
  });
});
