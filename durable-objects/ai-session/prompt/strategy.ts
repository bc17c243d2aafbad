/**
 * Layers 3 and 4 of the system prompt: the entry strategy for the session's target (the
 * Entry/Mode matrix: Workflow, Step, Agent, Asset × create/optimize, with each row's special
 * rule) and the mode strategy (create vs optimize). Plain tables, so a test can check each cell.
 */
import { ASSET_EXTENSIONS, MAX_ASSET_BYTES, MAX_ASSET_COUNT, MAX_ASSETS_TOTAL_BYTES, formatBytes } from '../../../shared/bmad/index.ts';
import type { SessionMeta, SessionMode, TargetType } from '../../../shared/ai/session.ts';

interface EntryRow {
  /** What the session is about, with the target named. */
  scope(session: SessionMeta): string;
  create: string[];
  optimize: string[];
  /** The row's special rule: holds in both modes. */
  special: string[];
}

const quoted = (id: string | null, fallback: string): string => (id === null ? fallback : `"${id}"`);

const ENTRY: Readonly<Record<TargetType, EntryRow>> = {
  workflow: {
    scope: (s) => `Entry: workflow ${quoted(s.targetId ?? s.workflowId, '(id not chosen yet)')}.`,
    create: [
      'Design the workflow end to end: workflow.md frontmatter (schemaVersion "1.1", workflowType, currentNodeId = the entry node, stepsCompleted: [], variables, decisionLog: [], artifacts: []) and its "## Steps Index", the graph (entryNodeId, nodes, edges with labels and exactly one default where a node has several outgoing edges), and a step file for every node.',
      'Reuse existing agents (dependency_digest) before inventing new ones.',
    ],
    optimize: [
      'Improve the structure: steps, variables and branches. Read the graph and the steps you change first (builder.workflow.read, builder.step.read).',
      'Keep node ids stable unless the user asks to rename them; a renamed node changes its step file, its edges and the Steps Index.',
    ],
    special: ['State which nodes and which references (agents, assets, variables) the change affects, in impact.objects and in your summary.'],
  },
  step: {
    scope: (s) => `Entry: step ${quoted(s.targetId, '(node id not chosen yet)')} of workflow ${quoted(s.workflowId, '(none)')}.`,
    create: [
      'Write a complete step file: frontmatter (schemaVersion, nodeId, type, title, agentId, inputs, outputs, setsVariables, transitions) and the body sections "## Goal", "## Instructions" (numbered, concrete) and "## Completion".',
      'Add the node, its edges and its Steps Index line to the workflow in the same change set.',
    ],
    optimize: [
      'Improve the step\'s content: a sharper goal, concrete numbered instructions, the inputs and outputs it really uses, and reference suggestions (agents, assets, variables).',
      'Keep its nodeId, its type and its transitions unless the user asks otherwise; transitions must keep matching the graph edges.',
    ],
    special: [
      'A step may change assets too, but then every asset it creates or changes is an operation of the change set and is listed in impact.objects.',
      'Referenced assets appear as paths only; read one with builder.asset.read before you rely on what it says.',
    ],
  },
  agent: {
    scope: (s) => `Entry: agent ${quoted(s.targetId, '(id not chosen yet)')} of agents.json.`,
    create: [
      'Write a schema-valid agent: id, metadata {name, title, icon}, persona {role, identity, communication_style, principles}; optional critical_actions, prompts, menu and tools only when they are needed.',
      'Pick an id that no agent uses yet (dependency_digest.agentIds).',
    ],
    optimize: [
      'Improve the persona, prompts and tools of the agent; read its current definition and who uses it (builder.refs.find) first.',
      'Keep the agentId: never rename the agent while optimizing; payload.agent.id, when given, equals target.agentId.',
    ],
    special: ['By default the agentId does not change: steps and graph nodes refer to the agent by id.'],
  },
  asset: {
    scope: (s) => `Entry: asset ${quoted(s.targetId, '(path not chosen yet)')}.`,
    create: [
      'Write the content and suggest a path: assets/<folder>/<name><extension>, named for what it holds.',
      'Say which steps should mention it (as @pkg/assets/<path> or assets/<path>) and add those step changes when the user wants them.',
    ],
    optimize: [
      'Improve the content; check who references it first (builder.refs.find) and keep what those steps rely on (headings, keys, numbering).',
      'Renaming or moving it changes every step that mentions it: include them, or keep the path.',
    ],
    special: [
      `Path and extension rules: the path starts with assets/, uses only A-Z a-z 0-9 . _ - /, has no empty, "." or ".." folder, and ends in ${ASSET_EXTENSIONS.join(' ')}; text files only.`,
      `Size rules: one asset is at most ${formatBytes(MAX_ASSET_BYTES)}; a project holds at most ${MAX_ASSET_COUNT} assets and ${formatBytes(MAX_ASSETS_TOTAL_BYTES)} of them.`,
      'List every step whose references change in impact.objects.',
    ],
  },
};

/** Layer 3: the entry strategy for the session's target, in its mode, with the row's special rule. */
export function buildEntryStrategyLayer(session: SessionMeta): string {
  const row = ENTRY[session.targetType];
  return [
    row.scope(session),
    ...row[session.mode].map((line) => `- ${line}`),
    'Always:',
    ...row.special.map((line) => `- ${line}`),
  ].join('\n');
}

const MODE: Readonly<Record<SessionMode, string[]>> = {
  create: [
    'Mode: create. The target may not exist yet (target_snapshot.exists is false): build it from the user\'s intent.',
    '- Check the ids and paths that already exist (target_snapshot and dependency_digest) and never overwrite an existing object by accident.',
    '- Produce complete, valid files, not outlines; when a requirement is unclear, ask one short question first (responseType "chat").',
    '- Keep the first version small and runnable; mention what could be added next.',
  ],
  optimize: [
    'Mode: optimize. The target exists: improve it without breaking what depends on it.',
    '- Read the current version first (target_snapshot, or a builder.*.read call when the snapshot is truncated) and build on the latest staged state.',
    '- Keep what works; change only what serves the user\'s request, keep ids stable, and explain each change in one sentence ("reason").',
    '- Check references (builder.refs.find) before changing anything other objects rely on.',
  ],
};

/** Layer 4: how to work in the session's mode. */
export function buildModeStrategyLayer(session: SessionMeta): string {
  return MODE[session.mode].join('\n');
}
