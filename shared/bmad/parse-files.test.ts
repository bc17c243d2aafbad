import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test/fixtures/packages.ts';
import { parseAgentsFile, parseGraphFile, parseManifestFile, parseStepFile, parseWorkflowMdFile } from './parse-files.ts';
import type { ValidationIssue } from './issues.ts';

const branching = loadFixture('branching');
const text = (path: string) => branching.get(path)!;
const json = (path: string) => JSON.parse(text(path)) as Record<string, any>;

function issuesOf(result: { ok: true } | { ok: false; issues: ValidationIssue[] }): ValidationIssue[] {
  return result.ok ? [] : result.issues;
}

describe('stage 1 for one file', () => {
  it('parses every file of the branching package', () => {
    expect(parseManifestFile(text('bmad.json')).ok).toBe(true);
    expect(parseAgentsFile(text('agents.json')).ok).toBe(true);
    expect(parseGraphFile(text('workflow.graph.json')).ok).toBe(true);
    expect(parseWorkflowMdFile(text('workflow.md')).ok).toBe(true);
    expect(parseStepFile(text('steps/01-collect-background.md'), 'steps/01-collect-background.md').ok).toBe(true);
  });

  it('reports a missing required field with its pointer', () => {
    const md = text('steps/99-finish.md').replace('nodeId: "finish"\n', '');
    expect(md).not.toBe(text('steps/99-finish.md'));
    const [issue, ...rest] = issuesOf(parseStepFile(md, 'steps/99-finish.md'));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      severity: 'error',
      code: 'SCHEMA_REQUIRED',
      filePath: 'steps/99-finish.md',
      pointer: '/nodeId',
      message: 'Missing required field: nodeId',
    });
  });

  it('reports a bad enum with the allowed values', () => {
    const graph = json('workflow.graph.json');
    graph.nodes[2].type = 'task';
    const issues = issuesOf(parseGraphFile(JSON.stringify(graph), 'workflow.graph.json'));
    expect(issues).toEqual([
      expect.objectContaining({
        code: 'SCHEMA_ENUM',
        pointer: '/nodes/2/type',
        hint: 'Allowed values: step, decision, merge, end, subworkflow',
      }),
    ]);
  });

  it('reports every violation, not only the first', () => {
    const graph = json('workflow.graph.json');
    graph.nodes[0].id = 'bad id';
    graph.edges[1].label = '';
    graph.edges[2].extra = true;
    delete graph.entryNodeId;
    const issues = issuesOf(parseGraphFile(JSON.stringify(graph), 'g.json'));
    expect(issues.map((i) => [i.code, i.pointer])).toEqual(
      expect.arrayContaining([
        ['SCHEMA_PATTERN', '/nodes/0/id'],
        ['SCHEMA_TOO_SMALL', '/edges/1/label'],
        ['SCHEMA_UNKNOWN_FIELD', '/edges/2/extra'],
        ['SCHEMA_REQUIRED', '/entryNodeId'],
      ]),
    );
    expect(issues).toHaveLength(4);
  });

  it('rejects entry.stepsDir with a specific hint', () => {
    const manifest = json('bmad.json');
    manifest.entry.stepsDir = 'steps/';
    const [issue] = issuesOf(parseManifestFile(JSON.stringify(manifest)));
    expect(issue).toMatchObject({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/entry/stepsDir', filePath: 'bmad.json' });
    expect(issue!.hint).toContain('not part of v1.1');
  });

  it('lists the allowed fields of a closed object', () => {
    const agents = json('agents.json');
    agents.agents[0].persona.communicationStyle = 'x';
    const [issue] = issuesOf(parseAgentsFile(JSON.stringify(agents)));
    expect(issue).toMatchObject({ code: 'SCHEMA_UNKNOWN_FIELD', pointer: '/agents/0/persona/communicationStyle' });
    expect(issue!.hint).toBe('Allowed fields here: role, identity, communication_style, principles.');
  });

  it('keeps menu items open but still checks their known fields', () => {
    const agents = json('agents.json');
    agents.agents[0].menu[0]['custom-key'] = { any: 1 };
    expect(parseAgentsFile(JSON.stringify(agents)).ok).toBe(true);
    agents.agents[0].menu[0].description = '';
    expect(issuesOf(parseAgentsFile(JSON.stringify(agents)))).toEqual([
      expect.objectContaining({ code: 'SCHEMA_TOO_SMALL', pointer: '/agents/0/menu/0/description' }),
    ]);
  });

  it('accepts principles as a string or a non-empty list, and explains other shapes', () => {
    const agents = json('agents.json');
    agents.agents[0].persona.principles = 'one line';
    expect(parseAgentsFile(JSON.stringify(agents)).ok).toBe(true);
    agents.agents[0].persona.principles = ['ok', ''];
    expect(issuesOf(parseAgentsFile(JSON.stringify(agents)))[0]).toMatchObject({
      code: 'SCHEMA_TOO_SMALL',
      pointer: '/agents/0/persona/principles/1',
    });
    agents.agents[0].persona.principles = 3;
    expect(issuesOf(parseAgentsFile(JSON.stringify(agents)))[0]).toMatchObject({
      code: 'SCHEMA_ONE_OF',
      pointer: '/agents/0/persona/principles',
      message: 'agents[0].persona.principles must be a string or a list, but it is a whole number.',
    });
  });

  it('reports a missing union field as missing', () => {
    const agents = json('agents.json');
    delete agents.agents[0].persona.principles;
    expect(issuesOf(parseAgentsFile(JSON.stringify(agents)))).toEqual([
      expect.objectContaining({
        code: 'SCHEMA_REQUIRED',
        pointer: '/agents/0/persona/principles',
        message: 'Missing required field: agents[0].persona.principles',
      }),
    ]);
  });

  it('checks tool limits as positive integers', () => {
    const agents = json('agents.json');
    agents.agents[0].tools.fs.maxReadBytes = 1.5;
    agents.agents[0].tools.fs.maxWriteBytes = 0;
    expect(issuesOf(parseAgentsFile(JSON.stringify(agents))).map((i) => [i.code, i.pointer])).toEqual([
      ['SCHEMA_FORMAT', '/agents/0/tools/fs/maxReadBytes'],
      ['SCHEMA_FORMAT', '/agents/0/tools/fs/maxWriteBytes'],
    ]);
  });

  it('tells the user to quote an unquoted schemaVersion in YAML', () => {
    const md = text('steps/99-finish.md').replace('schemaVersion: "1.1"', 'schemaVersion: 1.1');
    const [issue] = issuesOf(parseStepFile(md, 'steps/99-finish.md'));
    expect(issue).toMatchObject({ code: 'SCHEMA_TYPE', pointer: '/schemaVersion' });
    expect(issue!.message).toBe('schemaVersion must be a string, but it is a number.');
    expect(issue!.hint).toContain('schemaVersion: "1.1"');
  });

  it('fails a workflow.md with updatedAt: ""', () => {
    const blankDate = text('workflow.md').replace('runId: ""', 'runId: ""\nupdatedAt: ""');
    expect(blankDate).not.toBe(text('workflow.md'));
    const [issue, ...rest] = issuesOf(parseWorkflowMdFile(blankDate));
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: 'SCHEMA_FORMAT', pointer: '/updatedAt', filePath: 'workflow.md' });
    expect(issue!.hint).toContain('empty string is not allowed');
  });

  it('keeps the workflow.md and step frontmatter open', () => {
    const md = text('workflow.md').replace('stepsCompleted: []', 'stepsCompleted: []\ncustomField: {a: 1}');
    expect(parseWorkflowMdFile(md).ok).toBe(true);
  });

  it('reports a root that is not an object', () => {
    expect(issuesOf(parseAgentsFile('[]'))).toEqual([
      expect.objectContaining({ code: 'SCHEMA_TYPE', pointer: '', message: 'The file must contain a JSON object, but it is a list.' }),
    ]);
  });

  it('maps frontmatter problems to the STEP_* and WORKFLOW_* codes', () => {
    expect(issuesOf(parseStepFile('# no frontmatter\n', 's.md'))[0]!.code).toBe('STEP_MISSING_FRONTMATTER');
    expect(issuesOf(parseStepFile('---\na: [\n---\n', 's.md'))[0]!.code).toBe('STEP_INVALID_FRONTMATTER');
    expect(issuesOf(parseWorkflowMdFile('\n---\na: 1\n---\n'))[0]!.code).toBe('WORKFLOW_MISSING_FRONTMATTER');
    expect(issuesOf(parseWorkflowMdFile('---\na: 1\na: 2\n---\n'))[0]!.code).toBe('WORKFLOW_INVALID_FRONTMATTER');
  });
});
