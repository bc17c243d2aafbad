import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from './frontmatter.ts';
import { sourcesWithChangedEdges, stepWithGraphTransitions, transitionUpdates } from './graph-edit-steps.ts';
import { stepTransitionsAgree, syncStepTransitions, transitionsAgree, transitionsFromEdges, withTransitions } from './step-transitions.ts';

const START = `---
schemaVersion: "1.1"
nodeId: "start"
type: "step"
title:   "Start"   # spacing and comments are the author's
inputs: []
transitions:
  - to: "end"
    label: "next"
    isDefault: true
# kept comment
outputs: [a,  b]
---

# Start

## Goal

Body stays.
`;

function transitionsOf(markdown: string): unknown {
  const parsed = parseFrontmatter(markdown);
  if (!parsed.ok) throw new Error('frontmatter does not parse');
  return parsed.value.data.transitions;
}

function graph(edges: object[]): string {
  return JSON.stringify({ schemaVersion: '1.1', entryNodeId: 'start', nodes: [], edges });
}

describe('transitionsFromEdges', () => {
  it('lists the outgoing edges of one node in graph order, with flags and conditions only when set', () => {
    const edges = [
      { from: 'a', to: 'b', label: 'yes', isDefault: true },
      { from: 'c', to: 'a', label: 'back' },
      { from: 'a', to: 'c', label: 'no', conditionText: 'when not', isDefault: false },
    ];
    expect(transitionsFromEdges(edges, 'a')).toEqual([
      { to: 'b', label: 'yes', isDefault: true },
      { to: 'c', label: 'no', conditionText: 'when not' },
    ]);
    expect(transitionsFromEdges(edges, 'b')).toEqual([]);
  });
});

describe('transitionsAgree', () => {
  it('matches in any order, treats a lone transition as the default, and a missing list as none', () => {
    const two = [
      { to: 'b', label: 'yes', isDefault: true },
      { to: 'c', label: 'no' },
    ];
    expect(transitionsAgree([two[1], two[0]], two)).toBe(true);
    expect(transitionsAgree([{ to: 'b', label: 'yes' }, two[1]], two)).toBe(false);
    expect(transitionsAgree([{ to: 'end', label: 'next', isDefault: true }], [{ to: 'end', label: 'next' }])).toBe(true);
    expect(transitionsAgree([{ to: 'end', label: 'go' }], [{ to: 'end', label: 'next' }])).toBe(false);
    expect(transitionsAgree(undefined, [])).toBe(true);
    expect(transitionsAgree(undefined, [{ to: 'end', label: 'next' }])).toBe(false);
    expect(transitionsAgree('end', [])).toBe(false);
    expect(transitionsAgree([{ to: 'end' }], [{ to: 'end', label: 'next' }])).toBe(false);
  });
});

describe('withTransitions', () => {
  it('replaces only the transitions entry: every other byte of the file stays', () => {
    const list = [
      { to: 'end', label: 'next', isDefault: true },
      { to: 'step-3', label: 'a "quoted": label' },
    ];
    const out = withTransitions(START, list)!;
    expect(transitionsOf(out)).toEqual(list);
    const [head, tail] = START.split('transitions:\n  - to: "end"\n    label: "next"\n    isDefault: true\n');
    expect(out.startsWith(head!)).toBe(true);
    expect(out.endsWith(tail!)).toBe(true);
    expect(out).toContain('transitions:\n  - to: "end"\n    label: "next"\n    isDefault: true\n  - to: "step-3"\n');
  });

  it('replaces a flow list and one written without indentation, and appends the entry when there is none', () => {
    const flow = '---\nnodeId: a\ntransitions: [ {to: x, label: y} ] # old\nafter: 1\n---\nbody\n';
    expect(withTransitions(flow, [])).toBe('---\nnodeId: a\ntransitions: []\nafter: 1\n---\nbody\n');
    const compact = '---\ntransitions:\n- to: x\n  label: y\n\nafter: 1\n---\nbody\n';
    expect(withTransitions(compact, [{ to: 'z', label: 'go' }])).toBe('---\ntransitions:\n  - to: "z"\n    label: "go"\n\nafter: 1\n---\nbody\n');
    const none = '---\nnodeId: a\n---\nbody\n';
    expect(withTransitions(none, [{ to: 'z', label: 'go' }])).toBe('---\nnodeId: a\ntransitions:\n  - to: "z"\n    label: "go"\n---\nbody\n');
  });

  it('keeps a BOM and CRLF line ends', () => {
    const crlf = '\uFEFF---\r\nnodeId: a\r\ntransitions: []\r\ntitle: T\r\n---\r\nbody\r\n';
    expect(withTransitions(crlf, [{ to: 'b', label: 'next' }])).toBe(
      '\uFEFF---\r\nnodeId: a\r\ntransitions:\r\n  - to: "b"\r\n    label: "next"\r\ntitle: T\r\n---\r\nbody\r\n',
    );
  });

  it('leaves a file whose frontmatter does not parse alone', () => {
    expect(withTransitions('# no frontmatter', [])).toBeNull();
    expect(syncStepTransitions('---\na: [\n---\n', [])).toBeNull();
    expect(stepTransitionsAgree('# no frontmatter', [])).toBeNull();
  });

  it('syncs only a file that disagrees', () => {
    expect(syncStepTransitions(START, [{ to: 'end', label: 'next' }])).toBe(START);
    expect(transitionsOf(syncStepTransitions(START, [])!)).toEqual([]);
  });
});

describe('graph edit step files', () => {
  const before = graph([{ from: 'start', to: 'end', label: 'next' }]);
  const after = graph([
    { from: 'start', to: 'end', label: 'next', isDefault: true },
    { from: 'start', to: 'step-3', label: 'next' },
    { from: 'step-3', to: 'end', label: 'next' },
  ]);

  it('finds the sources whose outgoing edges changed', () => {
    expect([...sourcesWithChangedEdges(before, after)].sort()).toEqual(['start', 'step-3']);
    expect(sourcesWithChangedEdges(before, before).size).toBe(0);
    expect([...sourcesWithChangedEdges(after, before)].sort()).toEqual(['start', 'step-3']);
  });

  it('rewrites the transitions of the steps whose edges changed, and no other step', () => {
    const end = '---\nnodeId: "end"\ntype: "end"\ntransitions: []\n---\n# End\n';
    const updates = transitionUpdates(before, after, [
      { nodeId: 'start', markdown: START },
      { nodeId: 'end', markdown: end },
    ]);
    expect(updates.map((u) => u.nodeId)).toEqual(['start']);
    expect(transitionsOf(updates[0]!.markdown)).toEqual([
      { to: 'end', label: 'next', isDefault: true },
      { to: 'step-3', label: 'next' },
    ]);
    // Back to the old graph, the stored file with its lone (default) transition already agrees.
    expect(transitionUpdates(after, before, [{ nodeId: 'start', markdown: START }])).toEqual([]);
  });

  it('gives a new step the transitions of its outgoing edges', () => {
    const fresh = '---\nnodeId: "step-3"\ntransitions: []\n---\n# New\n';
    expect(transitionsOf(stepWithGraphTransitions(after, 'step-3', fresh))).toEqual([{ to: 'end', label: 'next' }]);
  });

  it('relabelling an edge changes only the label: a lone transition keeps its isDefault, and transitions keep the file order', () => {
    const exit = START.replaceAll('"end"', '"wrap-up"').replace('nodeId: "start"', 'nodeId: "graceful-exit"');
    const relabel = (label: string) => graph([{ from: 'graceful-exit', to: 'wrap-up', label }]);
    const [update] = transitionUpdates(relabel('next'), relabel('say goodbye'), [{ nodeId: 'graceful-exit', markdown: exit }]);
    expect(update!.markdown).toBe(exit.replace('label: "next"', 'label: "say goodbye"'));

    const two = START.replace('    isDefault: true\n', '    isDefault: true\n  - to: "back"\n    label: "again"\n');
    const edges = (label: string) => graph([
      { from: 'start', to: 'back', label: 'again' },
      { from: 'start', to: 'end', label, isDefault: true },
    ]);
    const [reordered] = transitionUpdates(edges('next'), edges('finish'), [{ nodeId: 'start', markdown: two }]);
    expect(reordered!.markdown).toBe(two.replace('label: "next"', 'label: "finish"'));
  });
});
