/**
 * Layer 2 of the system prompt, the output contract:
 * which files a change to the session's target touches, the exact changeSet shape of
 * shared/ai/change-set.ts, and the final-answer JSON the loop parses. Written precisely enough that
 * a model produces a change set `parseChangeSet` accepts; the test checks the example it shows.
 */
import { CHANGE_SET_SCHEMA_VERSION, MAX_CHANGE_OPERATIONS } from '../../../shared/ai/change-set-fields.ts';
import type { SessionMeta, TargetType } from '../../../shared/ai/session.ts';
import { formatObjectKey } from '../../../shared/object-keys.ts';

/** What a change to each target type writes, and what else it drags along (each target's special rule). */
const FILES_TOUCHED: Readonly<Record<TargetType, string[]>> = {
  workflow: [
    'A workflow lives in workflows/<workflowId>/workflow.md (frontmatter + "## Steps Index") and workflows/<workflowId>/workflow.graph.json (nodes and edges).',
    'One workflow upsert carries "workflowMd", "graphJson" or both. Every node needs a step file (workflows/<workflowId>/steps/<name>.md): add a step upsert per new node and a step delete per removed node, and keep the Steps Index in step with the graph.',
    'New agents a node names need an agent upsert.',
  ],
  step: [
    'A step is one Markdown file, workflows/<workflowId>/steps/<name>.md (its path is the graph node\'s "file"), written with a step upsert carrying the full file as "stepMarkdown".',
    'Its frontmatter nodeId equals the graph node id; its transitions must match the graph edges leaving the node. A new step also needs its node and edges in workflow.graph.json and a line in the Steps Index of workflow.md: add a workflow upsert with both.',
    'An asset the step should mention must exist or be created in the same change set (asset upsert).',
  ],
  agent: [
    'Agents are entries of agents.json, changed one agent at a time: an agent upsert carries the full agent object as "agent"; an agent delete removes it.',
    'Steps and graph nodes refer to agents by id: removing an agent breaks them, so update those steps in the same change set (find them with builder.refs.find).',
  ],
  asset: [
    'An asset is one text file under assets/, written with an asset upsert carrying the full text as "content", or removed with an asset delete.',
    'Moving or renaming an asset is a delete of the old path, an upsert of the new one, and a step upsert for every step that mentions the old path (find them with builder.refs.find).',
  ],
};

/** The change set shape, field by field, as change-set.ts defines it (strict objects: no other fields). */
const CHANGE_SET_SHAPE = [
  `A change set is one JSON object with exactly these fields (every object in it is strict: no other fields):`,
  `- "schemaVersion": required, always "${CHANGE_SET_SCHEMA_VERSION}".`,
  `- "targetType": required, this session's target type ("workflow" | "step" | "agent" | "asset").`,
  `- "mode": required, this session's mode ("create" | "optimize").`,
  `- "operations": required list of 1 to ${MAX_CHANGE_OPERATIONS} operations, at most one per object.`,
  `- "impact": optional. The system derives the impact (files, counts, references, risks) from what you stage; you may add {"objects": [object keys], "counts"?, "riskFlags"?, "requiresConfirmation"?} and a disagreement comes back as a note, never a refusal. Changes outside the target are allowed and shown to reviewers as cross-object.`,
  `- "revisions": optional {"workflowRevision"?, "agentsRevision"?, "assetsRevision"?}, integers copied from revision_info.baseline in the context (workflow.revision, agents, assets).`,
  `- "extensions": optional object, the only place for anything outside this contract.`,
  `Operations ("op" is "upsert" or "delete"; every operation may add "reason", one sentence for the reviewer, and "extensions"):`,
  `- workflow upsert: {"op":"upsert","targetType":"workflow","target":{"workflowId":…},"payload":{"workflowMd"?: full text, "graphJson"?: full graph as JSON text or object}}, at least one of the two. Deleting a whole workflow is not supported.`,
  `- step: {"op":"upsert","targetType":"step","target":{"workflowId":…,"nodeId":…},"payload":{"stepMarkdown": full file}} or {"op":"delete","targetType":"step","target":{"workflowId":…,"nodeId":…}}.`,
  `- agent: {"op":"upsert","targetType":"agent","target":{"agentId":…},"payload":{"agent": full agent object, its "id" equal to target.agentId}} or {"op":"delete","targetType":"agent","target":{"agentId":…}}.`,
  `- asset: {"op":"upsert","targetType":"asset","target":{"path":"assets/…"},"payload":{"content": full text}} or {"op":"delete","targetType":"asset","target":{"path":"assets/…"}}.`,
  'A delete has no "payload". Payload texts are whole files (never a diff or a fragment), at most 512 KiB each. Ids: a letter or digit, then letters, digits, ".", "_", ":" or "-".',
  'Object keys: workflow:<workflowId>, graph:<workflowId>, step:<workflowId>/<nodeId>, agent:<agentId>, asset:<path>.',
].join('\n');

const FINAL_ANSWER = [
  'Final answer: end every turn with one assistant message (no tool call) whose whole content is one JSON object, with no code fence and no text around it:',
  '{"responseType":"chat"|"change","assistantSummary":"…"}',
  '- "responseType": "change" only when builder.change.stage answered ok in this turn, or when the answer includes a changeSet; "chat" for answers, questions and suggestions. Claiming changes that were not staged is refused.',
  '- "assistantSummary": required, plain language for the user, under 2000 characters (the chat shows no more): summary only (objects changed, kind of change, impact, risks, validation result, next step). Never paste full file contents into it; the user reviews whole files and the diff in the preview pane.',
  '- "changeSet": optional, a change set as above, when you did not stage it with builder.change.stage; it is then staged and validated for you. Leave it out when you already staged.',
  '- "addressedThreads": optional, only when the user\'s message quotes review threads: the threadId of every thread your staged change addresses.',
  '- No other fields.',
].join('\n');

/** An id for the example when the session has none yet (a create without a chosen id). */
const PLACEHOLDER = { workflowId: 'my-workflow', nodeId: 'new-step', agentId: 'new-agent', path: 'assets/notes/new-file.md' } as const;

/** A minimal valid change set for the session's target, shown to the model as a pattern to follow. */
export function exampleChangeSet(session: SessionMeta): Record<string, unknown> {
  const { targetType, mode } = session;
  const workflowId = (targetType === 'workflow' ? session.targetId : null) ?? session.workflowId ?? PLACEHOLDER.workflowId;
  const base = { schemaVersion: CHANGE_SET_SCHEMA_VERSION, targetType, mode };
  const impact = (key: string) => ({ objects: [key], counts: { [targetType]: 1 }, riskFlags: [], requiresConfirmation: true });
  switch (targetType) {
    case 'workflow':
      return {
        ...base,
        operations: [
          {
            op: 'upsert',
            targetType,
            target: { workflowId },
            payload: { workflowMd: '---\nschemaVersion: "1.1"\nworkflowType: "…"\n…\n---\n\n# …\n\n## Steps Index\n\n- […](steps/….md)\n' },
            reason: '…',
          },
        ],
        impact: impact(formatObjectKey({ kind: 'workflow', workflowId })),
      };
    case 'step': {
      const nodeId = session.targetId ?? PLACEHOLDER.nodeId;
      return {
        ...base,
        operations: [
          {
            op: 'upsert',
            targetType,
            target: { workflowId, nodeId },
            payload: { stepMarkdown: `---\nschemaVersion: "1.1"\nnodeId: "${nodeId}"\ntype: "step"\n…\n---\n\n# …\n\n## Goal\n\n…\n\n## Instructions\n\n1. …\n` },
            reason: '…',
          },
        ],
        impact: impact(formatObjectKey({ kind: 'step', workflowId, nodeId })),
      };
    }
    case 'agent': {
      const agentId = session.targetId ?? PLACEHOLDER.agentId;
      const agent = {
        id: agentId,
        metadata: { name: '…', title: '…', icon: '…' },
        persona: { role: '…', identity: '…', communication_style: '…', principles: ['…'] },
      };
      return {
        ...base,
        operations: [{ op: 'upsert', targetType, target: { agentId }, payload: { agent }, reason: '…' }],
        impact: impact(formatObjectKey({ kind: 'agent', agentId })),
      };
    }
    case 'asset': {
      const path = session.targetId ?? PLACEHOLDER.path;
      return {
        ...base,
        operations: [{ op: 'upsert', targetType, target: { path }, payload: { content: '# …\n\n…\n' }, reason: '…' }],
        impact: impact(formatObjectKey({ kind: 'asset', path })),
      };
    }
    default: {
      const never: never = targetType;
      throw new Error(`unknown target type ${String(never)}`);
    }
  }
}

/** Layer 2: the output contract for the session's target type. */
export function buildOutputContractLayer(session: SessionMeta): string {
  return [
    `Files a ${session.targetType} change touches:`,
    ...FILES_TOUCHED[session.targetType].map((line) => `- ${line}`),
    '',
    CHANGE_SET_SHAPE,
    '',
    `Example for this session (replace every "…" with real content):`,
    JSON.stringify(exampleChangeSet(session)),
    '',
    FINAL_ANSWER,
  ].join('\n');
}
