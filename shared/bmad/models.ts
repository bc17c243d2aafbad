/**
 * Zod models of the five .bmad v1.1 files: closed objects for bmad.json, agents.json (except agent
 * menu items) and the graph, open ones for the two frontmatters, and no defaults (parsing never
 * adds a field, so data round-trips). The validation pipeline, the package store and the editors
 * all parse with these, and the published JSON Schemas (schemas/bmad-v1.1/) are generated from them
 * (json-schemas.ts): a refinement carries, in its params, the JSON Schema keyword it implements.
 */
import * as z from 'zod';
import { ID_PATTERN, SCHEMA_VERSION_PATTERN, SEMVER_PATTERN, SHA256_PATTERN, isDateTime, isJsonInteger } from './formats.ts';

export const NODE_TYPES = ['step', 'decision', 'merge', 'end', 'subworkflow'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

const Id = z.string().regex(ID_PATTERN);
const SchemaVersion = z.string().regex(SCHEMA_VERSION_PATTERN);
const NonEmptyString = z.string().min(1);
const DateTime = z.string().refine(isDateTime, { params: { format: 'date-time' } });
const PositiveInteger = z
  .number()
  .refine(isJsonInteger, { params: { format: 'integer' } })
  .refine((n) => n >= 1, { params: { format: 'minimum', minimum: 1 } });
const StringList = z.array(z.string());
/** `{type: "object", additionalProperties: true}`: any object, contents unchecked. */
const OpenObject = z.looseObject({});

// ---- bmad.json ------------------------------------------------------------------------------

export const ManifestEntry = z.strictObject({
  workflow: z.string(),
  graph: z.string(),
  agents: z.string(),
  assetsDir: z.string().optional(),
});
export type ManifestEntry = z.infer<typeof ManifestEntry>;

export const ManifestWorkflow = z.strictObject({
  id: Id,
  displayName: z.string().optional(),
  description: z.string().optional(),
  workflow: z.string(),
  graph: z.string(),
  tags: StringList.optional(),
});
export type ManifestWorkflow = z.infer<typeof ManifestWorkflow>;

/**
 * One folder or file name of the BMAD-METHOD layout: any script, no "." or "..", no slash,
 * backslash, colon or control character. Paths of the origin record below are built from these,
 * so an export written from it stays inside its zip.
 */
const ORIGIN_SEGMENT = String.raw`(?!\.\.?(?:/|$))[^/\\:\u0000-\u001f\u007f]+`;
/** The longest path the origin record keeps (the asset API's limit on a path). */
export const MAX_ORIGIN_PATH = 300;
const OriginDir = z.string().max(MAX_ORIGIN_PATH).regex(new RegExp(`^(?:${ORIGIN_SEGMENT}/)*$`, 'u'));
const OriginFile = z.string().max(MAX_ORIGIN_PATH).regex(new RegExp(`^${ORIGIN_SEGMENT}$`, 'u'));
export const OriginPath = z.string().max(MAX_ORIGIN_PATH).regex(new RegExp(`^(?:${ORIGIN_SEGMENT}/)*${ORIGIN_SEGMENT}$`, 'u'));

/**
 * Where a package imported from the BMAD-METHOD layout came from, so its export back writes every
 * file to its own folder and name (shared/bmad-method/derive.ts). Not part of bmad.json, whose top
 * level v1.1 closes: a `.bmad` carries it as `bmadMethod` in its project file (project-file.ts).
 */
export const BmadMethodOriginRecord = z.strictObject({
  layout: z.literal('bmad-method'),
  workflows: z
    .array(
      z.strictObject({
        id: Id,
        /** Folder of the workflow in the BMAD layout ('' = the zip root, else ending in "/"). */
        dir: OriginDir,
        /** Its main file in that folder (`workflow.md`, `instructions.md`, …). */
        file: OriginFile,
        /** Step files stored under an ASCII name: path in the package's workflow folder → path in the BMAD folder. */
        renamed: z.record(OriginPath, OriginPath).optional(),
      }),
    )
    .max(500),
  /** Assets stored under an ASCII name: package path (`assets/…`) → path in the BMAD layout. */
  assets: z.record(OriginPath, OriginPath).optional(),
});
export type BmadMethodOriginRecord = z.infer<typeof BmadMethodOriginRecord>;

export const BmadManifest = z.strictObject({
  schemaVersion: SchemaVersion,
  name: NonEmptyString,
  version: z.string().regex(SEMVER_PATTERN),
  description: z.string().optional(),
  author: z.string().optional(),
  createdAt: DateTime.optional(),
  entry: ManifestEntry,
  workflows: z.array(ManifestWorkflow).optional(),
  runtime: z
    .strictObject({ minRuntimeVersion: z.string().optional(), requiresNetwork: z.boolean().optional() })
    .optional(),
  integrity: z.strictObject({ sha256: z.string().regex(SHA256_PATTERN).optional() }).optional(),
});
export type BmadManifest = z.infer<typeof BmadManifest>;

// ---- agents.json ----------------------------------------------------------------------------

export const AgentToolPolicy = z.strictObject({
  fs: z
    .strictObject({
      enabled: z.boolean().optional(),
      maxReadBytes: PositiveInteger.optional(),
      maxWriteBytes: PositiveInteger.optional(),
    })
    .optional(),
  mcp: z.strictObject({ enabled: z.boolean().optional(), allowedServers: StringList.optional() }).optional(),
});
export type AgentToolPolicy = z.infer<typeof AgentToolPolicy>;

export const AgentMetadata = z.strictObject({
  name: NonEmptyString,
  title: NonEmptyString,
  icon: NonEmptyString,
  module: z.string().optional(),
  description: z.string().optional(),
  sourceId: z.string().optional(),
});
export type AgentMetadata = z.infer<typeof AgentMetadata>;

export const AgentPersona = z.strictObject({
  role: NonEmptyString,
  identity: NonEmptyString,
  communication_style: NonEmptyString,
  principles: z.union([NonEmptyString, z.array(NonEmptyString).min(1)]),
});
export type AgentPersona = z.infer<typeof AgentPersona>;

export const AgentPrompt = z.strictObject({
  id: NonEmptyString,
  content: NonEmptyString,
  description: z.string().optional(),
});
export type AgentPrompt = z.infer<typeof AgentPrompt>;

/** Menu items are the one open object in agents.json: BMAD tools add their own keys. */
export const AgentMenuItem = z.looseObject({
  trigger: z.string().optional(),
  triggers: z.array(OpenObject).optional(),
  description: NonEmptyString,
  workflow: z.string().optional(),
  exec: z.string().optional(),
  action: z.string().optional(),
  data: z.string().optional(),
  'validate-workflow': z.string().optional(),
  'ide-only': z.boolean().optional(),
  'web-only': z.boolean().optional(),
});
export type AgentMenuItem = z.infer<typeof AgentMenuItem>;

export const Agent = z.strictObject({
  id: Id,
  metadata: AgentMetadata,
  persona: AgentPersona,
  critical_actions: z.array(NonEmptyString).optional(),
  prompts: z.array(AgentPrompt).optional(),
  menu: z.array(AgentMenuItem).optional(),
  systemPrompt: z.string().optional(),
  userPromptTemplate: z.string().optional(),
  discussion: z.boolean().optional(),
  webskip: z.boolean().optional(),
  conversational_knowledge: z.array(OpenObject).optional(),
  tools: AgentToolPolicy.optional(),
});
export type Agent = z.infer<typeof Agent>;

export const AgentsFile = z.strictObject({
  schemaVersion: SchemaVersion,
  agents: z.array(Agent).min(1),
});
export type AgentsFile = z.infer<typeof AgentsFile>;

// ---- workflow.graph.json --------------------------------------------------------------------

export const GraphNode = z.strictObject({
  id: Id,
  type: z.enum(NODE_TYPES),
  /** Relative to the package root, e.g. `workflows/x/steps/a.md`; need not match the node id. */
  file: NonEmptyString,
  title: z.string().optional(),
  description: z.string().optional(),
  agentId: z.string().optional(),
  inputs: StringList.optional(),
  outputs: StringList.optional(),
});
export type GraphNode = z.infer<typeof GraphNode>;

export const GraphEdge = z.strictObject({
  id: z.string().optional(),
  from: Id,
  to: Id,
  label: NonEmptyString,
  isDefault: z.boolean().optional(),
  conditionText: z.string().optional(),
  conditionExpr: OpenObject.optional(),
});
export type GraphEdge = z.infer<typeof GraphEdge>;

export const WorkflowGraph = z.strictObject({
  schemaVersion: SchemaVersion,
  entryNodeId: Id,
  nodes: z.array(GraphNode).min(1),
  edges: z.array(GraphEdge),
  metadata: OpenObject.optional(),
});
export type WorkflowGraph = z.infer<typeof WorkflowGraph>;

// ---- workflow.md frontmatter (open) ---------------------------------------------------------

export const DecisionLogEntry = z.strictObject({
  from: z.string(),
  to: z.string(),
  label: z.string(),
  reason: z.string().optional(),
  decidedAt: DateTime.optional(),
});
export type DecisionLogEntry = z.infer<typeof DecisionLogEntry>;

export const WorkflowFrontmatter = z.looseObject({
  schemaVersion: SchemaVersion,
  workflowType: NonEmptyString,
  runId: z.string().optional(),
  project_name: z.string().optional(),
  user_name: z.string().optional(),
  date: z.string().optional(),
  updatedAt: DateTime.optional(),
  /** Empty before the first step starts. */
  currentNodeId: z.string(),
  stepsCompleted: StringList,
  variables: OpenObject.optional(),
  decisionLog: z.array(DecisionLogEntry).optional(),
  artifacts: StringList.optional(),
});
export type WorkflowFrontmatter = z.infer<typeof WorkflowFrontmatter>;

// ---- step frontmatter (open) ----------------------------------------------------------------

export const StepTransition = z.strictObject({
  to: z.string(),
  label: z.string(),
  isDefault: z.boolean().optional(),
  conditionText: z.string().optional(),
});
export type StepTransition = z.infer<typeof StepTransition>;

export const StepFrontmatter = z.looseObject({
  schemaVersion: SchemaVersion,
  nodeId: Id,
  type: z.enum(NODE_TYPES),
  title: z.string().optional(),
  agentId: z.string().optional(),
  inputs: StringList.optional(),
  outputs: StringList.optional(),
  setsVariables: StringList.optional(),
  transitions: z.array(StepTransition).optional(),
});
export type StepFrontmatter = z.infer<typeof StepFrontmatter>;
