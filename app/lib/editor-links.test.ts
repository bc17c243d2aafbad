import { describe, expect, it } from 'vitest';
import { editorHrefForFile, editorHrefForObjectKey, type LinkContext } from './editor-links.ts';

const multi: LinkContext = { projectId: 'p1', workflowIds: ['expense-check', 'intake'], agentIds: ['writer', 'critic'] };
const single: LinkContext = { projectId: 'p1', workflowIds: ['main'], agentIds: [] };
const wf = (id: string, query = '') => `/projects/p1/workflows/${id}${query}`;

describe('editorHrefForFile', () => {
  it('sends a multi-workflow file to its workflow, at the file or node the pointer names', () => {
    expect(editorHrefForFile(multi, 'workflows/intake/workflow.md')).toBe(wf('intake', '?file=workflow-md'));
    expect(editorHrefForFile(multi, 'workflows/intake/workflow.graph.json')).toBe(wf('intake', '?file=graph'));
    expect(editorHrefForFile(multi, 'workflows/intake/workflow.graph.json', '/nodes/3/agentId')).toBe(wf('intake', '?nodeIndex=3'));
    expect(editorHrefForFile(multi, 'workflows/intake/steps/step-01.md')).toBe(
      wf('intake', `?step=${encodeURIComponent('workflows/intake/steps/step-01.md')}`),
    );
    // A step file an author named with an upper-case extension is a step all the same.
    expect(editorHrefForFile(multi, 'workflows/intake/steps/Step-02.MD')).toBe(
      wf('intake', `?step=${encodeURIComponent('workflows/intake/steps/Step-02.MD')}`),
    );
  });

  it('maps a root-level file to the only workflow, or the default one', () => {
    expect(editorHrefForFile(single, 'workflow.md')).toBe(wf('main', '?file=workflow-md'));
    expect(editorHrefForFile({ ...multi, defaultWorkflowId: 'intake' }, 'workflow.graph.json')).toBe(wf('intake', '?file=graph'));
    // Several workflows and no default: nobody can say which one.
    expect(editorHrefForFile(multi, 'workflow.md')).toBeUndefined();
  });

  it('links nothing for a workflow the project does not have', () => {
    expect(editorHrefForFile(multi, 'workflows/deleted/workflow.md')).toBeUndefined();
  });

  it('sends agents.json to the agent the pointer names, else to the list', () => {
    expect(editorHrefForFile(multi, 'agents.json', '/agents/1/role')).toBe('/projects/p1/agents/critic');
    expect(editorHrefForFile(multi, 'agents.json', '/agents/9')).toBe('/projects/p1/agents');
    expect(editorHrefForFile(multi, 'agents.json')).toBe('/projects/p1/agents');
  });

  it('sends the manifest to settings and an asset to the assets page with its path', () => {
    expect(editorHrefForFile(multi, 'bmad.json')).toBe('/projects/p1/settings');
    expect(editorHrefForFile(multi, 'assets/templates/a b.md')).toBe(`/projects/p1/assets?path=${encodeURIComponent('assets/templates/a b.md')}`);
  });
});

describe('editorHrefForObjectKey', () => {
  it('maps every kind of history key to its editor', () => {
    expect(editorHrefForObjectKey('p1', 'workflow:intake')).toBe(wf('intake', '?file=workflow-md'));
    expect(editorHrefForObjectKey('p1', 'graph:intake')).toBe(wf('intake', '?file=graph'));
    expect(editorHrefForObjectKey('p1', 'workflow-name:intake')).toBe(wf('intake'));
    expect(editorHrefForObjectKey('p1', 'workflow-default:intake')).toBe(wf('intake'));
    expect(editorHrefForObjectKey('p1', 'step:intake/step-01')).toBe(wf('intake', '?node=step-01'));
    expect(editorHrefForObjectKey('p1', 'agent:writer')).toBe('/projects/p1/agents/writer');
    expect(editorHrefForObjectKey('p1', 'asset:assets/x.md')).toBe(`/projects/p1/assets?path=${encodeURIComponent('assets/x.md')}`);
  });

  it('links nothing for keys it cannot read', () => {
    for (const key of ['nonsense', 'agent:', 'step:no-slash', 'step:/n1', 'manifest:x', ':x']) {
      expect(editorHrefForObjectKey('p1', key), key).toBeUndefined();
    }
  });
});
