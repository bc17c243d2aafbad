import { describe, expect, it } from 'vitest';
import type { FileDiffView } from './types.ts';
import { unifiedDiff } from './unified-diff.ts';

const file = (before: string | null, after: string | null, extra: Partial<FileDiffView> = {}): FileDiffView => ({
  key: 'step:wf/n1',
  action: before === null ? 'A' : after === null ? 'D' : 'M',
  path: 'workflows/wf/steps/step-01.md',
  before,
  after,
  ...extra,
});

describe('unifiedDiff', () => {
  it('types every line of a modified file: headers, the hunk, context, removals and additions', () => {
    const diff = unifiedDiff(file('one\ntwo\nthree\n', 'one\n2\nthree\n'));
    expect(diff.lines).toEqual([
      { kind: 'header', text: '--- a/workflows/wf/steps/step-01.md' },
      { kind: 'header', text: '+++ b/workflows/wf/steps/step-01.md' },
      { kind: 'hunk', text: '@@ -1,3 +1,3 @@' },
      { kind: 'ctx', text: ' one', newLine: 1 },
      { kind: 'del', text: '-two' },
      { kind: 'add', text: '+2', newLine: 2 },
      { kind: 'ctx', text: ' three', newLine: 3 },
    ]);
    expect([diff.added, diff.removed]).toEqual([1, 1]);
  });

  it('diffs a new file against /dev/null, all additions', () => {
    const diff = unifiedDiff(file(null, '# Step\nBody\n'));
    expect(diff.lines.slice(0, 2)).toEqual([
      { kind: 'header', text: '--- /dev/null' },
      { kind: 'header', text: '+++ b/workflows/wf/steps/step-01.md' },
    ]);
    expect([diff.added, diff.removed]).toEqual([2, 0]);
    expect(diff.lines.filter((l) => l.kind === 'add').map((l) => l.text)).toEqual(['+# Step', '+Body']);
  });

  it('diffs a deleted file to /dev/null, all removals', () => {
    const diff = unifiedDiff(file('a\nb\nc\n', null));
    expect(diff.lines[1]).toEqual({ kind: 'header', text: '+++ /dev/null' });
    expect([diff.added, diff.removed]).toEqual([0, 3]);
  });

  it('names the file by its key when it has no path', () => {
    const diff = unifiedDiff(file('x\n', 'y\n', { path: undefined, key: 'agent:writer' }));
    expect(diff.lines.slice(0, 2).map((l) => l.text)).toEqual(['--- a/agent:writer', '+++ b/agent:writer']);
  });

  it('marks "No newline at end of file" as a note, not as context', () => {
    const diff = unifiedDiff(file('a\nb', 'a\nc'));
    expect(diff.lines.filter((l) => l.kind === 'note').map((l) => l.text)).toEqual(['\\ No newline at end of file', '\\ No newline at end of file']);
    expect([diff.added, diff.removed]).toEqual([1, 1]);
  });

  it('keeps lines of the content that look like headers inside a hunk as content', () => {
    // A Markdown rule and a line starting with "+++" are package text, not patch headers.
    const diff = unifiedDiff(file('--- \nintro\n', '+++ plus\n--- \nintro\n'));
    expect(diff.lines.slice(2)).toEqual([
      { kind: 'hunk', text: '@@ -1,2 +1,3 @@' },
      { kind: 'add', text: '++++ plus', newLine: 1 },
      { kind: 'ctx', text: ' --- ', newLine: 2 },
      { kind: 'ctx', text: ' intro', newLine: 3 },
    ]);
  });

  it('splits far-apart changes into hunks with the asked-for context', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'line two\n').replace('line 28\n', 'line twenty-eight\n');
    const wide = unifiedDiff(file(before, after));
    expect(wide.lines.filter((l) => l.kind === 'hunk').map((l) => l.text)).toEqual(['@@ -1,5 +1,5 @@', '@@ -25,6 +25,6 @@']);
    // Each staged line carries its number in the staged text (where a comment anchors), across hunks.
    expect(wide.lines.filter((l) => l.kind === 'add').map((l) => [l.text, l.newLine])).toEqual([['+line two', 2], ['+line twenty-eight', 28]]);
    const tight = unifiedDiff(file(before, after), 0);
    expect(tight.lines.filter((l) => l.kind === 'ctx')).toEqual([]);
    expect([tight.added, tight.removed]).toEqual([2, 2]);
  });

  it('has no hunk when nothing changed', () => {
    const diff = unifiedDiff(file('same\n', 'same\n'));
    expect(diff.lines.map((l) => l.kind)).toEqual(['header', 'header']);
    expect([diff.added, diff.removed]).toEqual([0, 0]);
  });
});
