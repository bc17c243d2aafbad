/**
 * Open-redirect attempts against `next` and `source`: every form a browser would turn into
 * another origin (or a script) must fall back; ordinary paths of the app must pass.
 */
import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next-path.ts';

/** Inputs as they arrive from URLSearchParams (already percent-decoded once). */
const BYPASSES = [
  '//evil.com',
  '///evil.com',
  '/\\evil.com',
  '\\/evil.com',
  '\\\\evil.com',
  '/\t/evil.com',
  '/\n/evil.com',
  '/\r/evil.com',
  '\t//evil.com',
  ' //evil.com',
  '/%0a/evil.com',
  '/%09/evil.com',
  '/%2F%2Fevil.com',
  '/%2f/evil.com',
  '/%5Cevil.com',
  '/%5c%5cevil.com',
  '/%252F%252Fevil.com',
  '/ /evil.com',
  '/\x00/evil',
  '/%00/evil',
  'https://evil.com',
  'HTTPS://evil.com/projects',
  'javascript:alert(1)',
  '/javascript:alert(1)//\n',
  'evil.com',
  '',
];

describe('safeNextPath', () => {
  it.each(BYPASSES)('refuses %j', (value) => {
    expect(safeNextPath(value, '/fallback')).toBe('/fallback');
  });

  it('keeps paths of this site with their query and fragment', () => {
    expect(safeNextPath('/projects')).toBe('/projects');
    expect(safeNextPath('/builder/prj_1/workflows/wf-a?tab=steps#s2')).toBe('/builder/prj_1/workflows/wf-a?tab=steps#s2');
    // An encoded slash in the query (a nested `source`) is the query's business, not a new origin.
    expect(safeNextPath('/builder/prj_1/ai-workbench?targetType=step&source=%2Fprojects%2Fprj_1')).toBe(
      '/builder/prj_1/ai-workbench?targetType=step&source=%2Fprojects%2Fprj_1',
    );
  });

  it('uses the fallback when there is no value', () => {
    expect(safeNextPath(null)).toBe('/projects');
    expect(safeNextPath(undefined, '')).toBe('');
  });
});
