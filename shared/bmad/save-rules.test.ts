import { describe, expect, it } from 'vitest';
import { agentSaveRefusals, graphSaveRefusals, stepSaveRefusals, workflowMdSaveRefusals } from './save-rules.ts';
import { validateAgentsJson } from './validate-file.ts';

const codes = (issues: { code: string; pointer?: string }[]) => issues.map((i) => `${i.code}@${i.pointer ?? ''}`);
const agent = (id: string, name = 'Mary') => ({
  id,
  metadata: { name, title: 'Analyst', icon: 'A' },
  persona: { role: 'r', identity: 'i', communication_style: 'c', principles: 'p' },
});

describe('save refusals', () => {
  it('refuses graph JSON that does not parse', () => {
    expect(codes(graphSaveRefusals('{"nodes": [', 'g.json'))).toEqual(['JSON_PARSE_ERROR@']);
  });

  it('lists every schema violation of a graph AND its edges to nowhere, in one answer', () => {
    const text = JSON.stringify({
      schemaVersion: '1.1',
      entryNodeId: 'gone',
      nodes: [{ id: 'a', type: 'bogus', file: 'a.md' }, { id: 'a', type: 'step', file: 'b.md' }],
      edges: [{ from: 'a', to: 'nowhere' }],
    });
    expect(codes(graphSaveRefusals(text, 'g.json')).sort()).toEqual(
      [
        'SCHEMA_ENUM@/nodes/0/type',
        'SCHEMA_REQUIRED@/edges/0/label',
        'GRAPH_DUPLICATE_NODE_ID@/nodes/1/id',
        'GRAPH_ENTRY_NOT_FOUND@/entryNodeId',
        'GRAPH_EDGE_UNKNOWN_NODE@/edges/0/to',
      ].sort(),
    );
  });

  it('refuses a schema-valid graph whose edge leads nowhere, but not a half-connected new node', () => {
    const graph = {
      schemaVersion: '1.1',
      entryNodeId: 'a',
      nodes: [{ id: 'a', type: 'step', file: 'a.md' }, { id: 'b', type: 'end', file: 'b.md' }, { id: 'c', type: 'step', file: 'c.md' }],
      edges: [{ from: 'a', to: 'b', label: 'next' }],
    };
    expect(graphSaveRefusals(JSON.stringify(graph), 'g.json')).toEqual([]);
    graph.edges.push({ from: 'b', to: 'zz', label: 'x' });
    expect(codes(graphSaveRefusals(JSON.stringify(graph), 'g.json'))).toEqual(['GRAPH_EDGE_UNKNOWN_NODE@/edges/1/to']);
  });

  it('refuses a step whose frontmatter does not parse or names another node, with every reason', () => {
    expect(codes(stepSaveRefusals('# just text', 's.md', 'a'))).toEqual(['STEP_MISSING_FRONTMATTER@']);
    expect(codes(stepSaveRefusals('---\nschemaVersion: 2\nnodeId: "-x"\ntype: foo\n---\n', 's.md', 'a'))).toEqual([
      'SCHEMA_TYPE@/schemaVersion',
      'SCHEMA_PATTERN@/nodeId',
      'SCHEMA_ENUM@/type',
    ]);
    expect(codes(stepSaveRefusals('---\nschemaVersion: "1.1"\nnodeId: b\ntype: step\n---\n', 's.md', 'a'))).toEqual(['STEP_NODE_ID_MISMATCH@/nodeId']);
    // Sections not written yet are reported by the save, not refused.
    expect(stepSaveRefusals('---\nschemaVersion: "1.1"\nnodeId: a\ntype: step\n---\n', 's.md', 'a')).toEqual([]);
  });

  it('refuses a workflow.md without its frontmatter', () => {
    expect(codes(workflowMdSaveRefusals('# changed', 'w.md'))).toEqual(['WORKFLOW_MISSING_FRONTMATTER@']);
    expect(workflowMdSaveRefusals('---\nschemaVersion: "1.1"\nworkflowType: x\ncurrentNodeId: ""\nstepsCompleted: []\n---\n', 'w.md')).toEqual([]);
  });

  it('refuses an agent with an empty name and a taken id, listing both', () => {
    expect(codes(agentSaveRefusals(agent('mary', ''), 2, ['mary']))).toEqual(['SCHEMA_TOO_SMALL@/agents/2/metadata/name', 'AGENT_DUPLICATE_ID@/agents/2/id']);
    expect(agentSaveRefusals(agent('mary'), 0, ['john'])).toEqual([]);
  });

  it('reports duplicate agent ids even when agents.json also fails its schema', () => {
    const text = JSON.stringify({ schemaVersion: '1.1', agents: [agent('a', ''), agent('a')] });
    expect(codes(validateAgentsJson(text).errors)).toEqual(['SCHEMA_TOO_SMALL@/agents/0/metadata/name', 'AGENT_DUPLICATE_ID@/agents/1/id']);
  });
});
