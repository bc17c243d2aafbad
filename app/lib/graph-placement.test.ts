import { describe, expect, it } from 'vitest';
import { legacyImportPositions } from '../../shared/bmad-method/positions.ts';
import { placementOf, placementOfText } from './graph-placement.ts';

const nodes = [
  { id: 'step-02', type: 'step', file: 'steps/step-02.md', title: 'Two' },
  { id: 'step-03', type: 'end', file: 'steps/step-03.md', title: 'Three' },
];
const edges = [{ from: 'step-02', to: 'step-03', label: 'Exit' }];

function imported(positions: Record<string, { x: number; y: number }>) {
  return { schemaVersion: '1.1', entryNodeId: 'step-02', nodes, edges, metadata: { source: 'bmad-method', layout: { positions } } };
}

describe('placementOf', () => {
  it('sets aside the positions an earlier BMAD-METHOD import derived (side by side), so the canvas lays the graph out', () => {
    const derived = legacyImportPositions('step-02', ['step-02', 'step-03'], edges);
    // The import puts the second step beside the first, on the same row.
    expect(derived['step-03']!.y).toBe(derived['step-02']!.y);
    expect(placementOf(imported(derived))).toEqual({ positions: new Map(), importDerived: true });
  });

  it('still sets aside the import’s positions once the AI or a person added a step that moves the layers after it', () => {
    const derived = legacyImportPositions('step-02', ['step-02', 'step-03'], edges);
    // A step inserted between the two, stored without a position: step-03 is now a layer further on.
    const added = {
      ...imported(derived),
      nodes: [...nodes, { id: 'step-02b', type: 'step', file: 'steps/step-02b.md', title: 'Between' }],
      edges: [
        { from: 'step-02', to: 'step-02b', label: 'Next' },
        { from: 'step-02b', to: 'step-03', label: 'Exit' },
      ],
    };
    expect(placementOf(added)).toEqual({ positions: new Map(), importDerived: true });
  });

  it('keeps an imported graph’s positions once a person moved a node', () => {
    const derived = legacyImportPositions('step-02', ['step-02', 'step-03'], edges);
    const moved = { ...derived, 'step-03': { x: 0, y: 200 } };
    const placement = placementOf(imported(moved));
    expect(placement.importDerived).toBe(false);
    expect(placement.positions.get('step-03')).toEqual({ x: 0, y: 200 });
    expect(placement.positions.get('step-02')).toEqual(derived['step-02']);
  });

  it('keeps hand-placed positions of a graph that did not come from the import, side by side or not', () => {
    const graph = { schemaVersion: '1.1', entryNodeId: 'step-02', nodes, edges, metadata: { layout: { positions: { 'step-02': { x: 0, y: 0 }, 'step-03': { x: 280, y: 0 } } } } };
    const placement = placementOf(graph);
    expect(placement.importDerived).toBe(false);
    expect([...placement.positions]).toEqual([
      ['step-02', { x: 0, y: 0 }],
      ['step-03', { x: 280, y: 0 }],
    ]);
  });

  it('reads no positions from an unreadable text or a graph without any', () => {
    expect(placementOfText('{not json')).toEqual({ positions: new Map(), importDerived: false });
    expect(placementOfText(JSON.stringify({ entryNodeId: 'step-02', nodes, edges, metadata: { source: 'bmad-method' } }))).toEqual({
      positions: new Map(),
      importDerived: false,
    });
  });
});
