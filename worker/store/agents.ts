/**
 * The project's agents.json: read, upsert one agent, delete one agent, under agents_revision.
 * The file is kept as text; one agent's JSON is its history content, so a revert restores
 * exactly that agent.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { projects } from '../db/schema.ts';
import { ApiError } from '../../shared/api-error.ts';
import { nowIso } from '../../shared/ids.ts';
import { commitChanges, expectRevision, type CommitContext } from './commit.ts';
import { formatObjectKey } from '../../shared/object-keys.ts';
import { PackageId } from '../../shared/api/common.ts';
import type { AgentsView } from '../../shared/api/store.ts';
import { eolOf, jsonFileText, type Eol } from '../../shared/bmad/index.ts';

type AgentRecord = Record<string, unknown> & { id?: unknown };

export interface AgentsFile {
  document: Record<string, unknown> & { agents: AgentRecord[] };
  revision: number;
  text: string;
}

/** Parse agents.json leniently: a broken file reads as an empty list and is reported by validation. */
export function parseAgentsDocument(text: string): AgentsFile['document'] {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const doc = value as Record<string, unknown>;
      const agents = Array.isArray(doc.agents) ? (doc.agents as AgentRecord[]) : [];
      return { ...doc, agents };
    }
  } catch {
    // fall through
  }
  return { schemaVersion: '1.1', agents: [] };
}

/** agents.json as the product writes it, in the line ending the stored file has (CRLF stays CRLF). */
export function serializeAgents(document: AgentsFile['document'], eol: Eol = '\n'): string {
  return jsonFileText(document, eol);
}

async function loadAgents(db: Db, projectId: string): Promise<AgentsFile> {
  const row = await db
    .select({ agentsJson: projects.agentsJson, revision: projects.agentsRevision })
    .from(projects)
    .where(eq(projects.id, projectId))
    .get();
  if (!row) throw new ApiError('PROJECT_NOT_FOUND');
  return agentsFileOf(row);
}

/** agents.json from its project row's text and revision (read here, or with who-is-asking). */
export function agentsFileOf(row: { agentsJson: string; revision: number }): AgentsFile {
  return { document: parseAgentsDocument(row.agentsJson), revision: row.revision, text: row.agentsJson };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export async function getAgents(db: Db, projectId: string): Promise<AgentsView> {
  return agentsViewOf(await loadAgents(db, projectId));
}

export function agentsViewOf(file: AgentsFile): AgentsView {
  return {
    revision: file.revision,
    agentsJson: file.text,
    agents: file.document.agents.map((agent) => {
      const metadata = (agent.metadata ?? {}) as Record<string, unknown>;
      return { id: text(agent.id), name: text(metadata.name), title: text(metadata.title) };
    }),
  };
}

function indexOfAgent(document: AgentsFile['document'], agentId: string): number {
  return document.agents.findIndex((a) => a.id === agentId);
}

export async function putAgent(
  db: Db,
  ctx: CommitContext,
  agentId: string,
  agent: Record<string, unknown>,
  baseRevision: number | undefined,
  /** agents.json when the caller read it already (with who-is-asking): no read here. */
  current?: AgentsFile,
): Promise<{ revision: number; agentsJson: string }> {
  if (!PackageId.safeParse(agentId).success) {
    throw new ApiError('VALIDATION_FAILED', { message: `"${agentId}" is not a valid agent id.` });
  }
  if (agent.id !== undefined && agent.id !== agentId) {
    throw new ApiError('VALIDATION_FAILED', {
      message: 'The agent id in the body differs from the one in the address.',
      hints: ['An agent keeps its id; create a new agent to use another id.'],
    });
  }
  const file = current ?? (await loadAgents(db, ctx.projectId));
  const expected = expectRevision(file.revision, baseRevision);
  const next = { id: agentId, ...agent };
  const index = indexOfAgent(file.document, agentId);
  const before = index >= 0 ? file.document.agents[index]! : null;
  const agents = [...file.document.agents];
  if (index >= 0) agents[index] = next;
  else agents.push(next);
  const document = { ...file.document, agents };
  const eol = eolOf(file.text);
  return { revision: await commitAgents(db, ctx, expected, document, agentId, before, next, undefined, eol), agentsJson: serializeAgents(document, eol) };
}

export async function deleteAgent(
  db: Db,
  ctx: CommitContext,
  agentId: string,
  baseRevision: number | undefined,
): Promise<number> {
  const file = await loadAgents(db, ctx.projectId);
  const index = indexOfAgent(file.document, agentId);
  if (index < 0) throw new ApiError('AGENT_NOT_FOUND', { message: `There is no agent "${agentId}" in this project.` });
  const expected = expectRevision(file.revision, baseRevision);
  const agents = file.document.agents.filter((_, i) => i !== index);
  return commitAgents(db, ctx, expected, { ...file.document, agents }, agentId, file.document.agents[index]!, null, 'delete', eolOf(file.text));
}

/** Write the whole agents.json with one history row for the agent that changed. */
export async function commitAgents(
  db: Db,
  ctx: CommitContext,
  expectedRevision: number,
  document: AgentsFile['document'],
  agentId: string,
  before: AgentRecord | null,
  after: AgentRecord | null,
  action: 'create' | 'update' | 'delete' | 'revert' = before === null ? 'create' : after === null ? 'delete' : 'update',
  /** The stored file's line ending, kept (eolOf of its text). */
  eol: Eol = '\n',
): Promise<number> {
  const [revision] = (
    await commitChanges(db, ctx, [
      {
        scope: { kind: 'agents' },
        expectedRevision,
        writes: [
          {
            objectKey: formatObjectKey({ kind: 'agent', agentId }),
            action,
            contentBefore: before ? JSON.stringify(before, null, 2) : null,
            contentAfter: after ? JSON.stringify(after, null, 2) : null,
          },
        ],
        statements: [
          db
            .update(projects)
            .set({ agentsJson: serializeAgents(document, eol), updatedAt: nowIso() })
            .where(eq(projects.id, ctx.projectId)),
        ],
      },
    ])
  ).revisions;
  return revision!;
}
