/**
 * The changeSet contract (spec README §2): the strict zod schema of what the AI stages, and
 * `parseChangeSet`, which checks a proposed change set against the schema and the contract's
 * semantic rules and reports every violation in plain English. The seed's older
 * `{changeSet: {steps[], assets{upsert, delete}}}` shape is converted to the current one with a
 * deprecation warning. Used by `builder.change.stage` / `validate` and for the model's JSON Schema.
 */
import { z } from 'zod';
import { checkAssetPath, formatBytes } from '../bmad/asset-path.ts';
import { ID_PATTERN } from '../bmad/formats.ts';
import { describePath, lookup } from '../bmad/json-pointer.ts';
import { preview } from '../bmad/schema-issues.ts';
import type { DataPath } from '../bmad/json-pointer.ts';
import { utf8ByteLength } from '../bmad/limits.ts';
import type { ErrorCode } from '../errors.ts';
import { formatObjectKey, parseObjectKey } from '../object-keys.ts';
import { SessionMode, TargetType } from './session.ts';

export const CHANGE_SET_SCHEMA_VERSION = '1.0';
/** Operations in one change set. */
export const MAX_CHANGE_OPERATIONS = 200;
/** Any one payload text (a step, workflow.md, a graph, an asset, an agent as JSON), in UTF-8 bytes. */
export const MAX_PAYLOAD_TEXT_BYTES = 512 * 1024;
/** Warning code for a change set sent in the seed's older shape (not an API error code). */
export const LEGACY_SHAPE_WARNING = 'AI_CHANGESET_LEGACY_SHAPE';

const CONTRACT: ErrorCode = 'AI_CHANGESET_CONTRACT_VIOLATION';
const ID_HINT = "Ids start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (no spaces).";

export interface ContractViolation {
  code: ErrorCode | string;
  message: string;
  /** Where in the change set, e.g. `operations[2].target.path`; '' for the whole change set. */
  path: string;
  hints: string[];
}

/** What a custom zod issue raised by this schema carries, so it keeps its own code and hint. */
interface ViolationParams {
  code: ErrorCode;
  hint?: string;
}

function addViolation(ctx: z.RefinementCtx, code: ErrorCode, message: string, hint?: string): void {
  const params: ViolationParams = hint === undefined ? { code } : { code, hint };
  ctx.addIssue({ code: 'custom', message, params });
}

// ---- field schemas --------------------------------------------------------------------------

function id(description: string) {
  return z.string().regex(ID_PATTERN).describe(description);
}

/** Size of `value` as JSON text, or undefined when it is not plain JSON data. */
function jsonBytes(value: unknown): number | undefined {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : utf8ByteLength(text);
  } catch {
    return undefined;
  }
}

function checkSize(bytes: number | undefined, ctx: z.RefinementCtx): void {
  if (bytes === undefined) {
    const hint = 'Use only objects, lists, strings, numbers, true/false and null.';
    addViolation(ctx, CONTRACT, 'The value is not plain JSON data.', hint);
  } else if (bytes > MAX_PAYLOAD_TEXT_BYTES) {
    addViolation(
      ctx,
      CONTRACT,
      `The text is ${formatBytes(bytes)}; one text may be at most ${formatBytes(MAX_PAYLOAD_TEXT_BYTES)}.`,
      'Make the text shorter, or split the change into several smaller operations.',
    );
  }
}

function payloadText(description: string) {
  return z
    .string()
    .superRefine((text, ctx) => checkSize(utf8ByteLength(text), ctx))
    .describe(`${description} At most 512 KiB.`);
}

function jsonObject(description: string) {
  return z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => checkSize(jsonBytes(value), ctx))
    .describe(description);
}

const AssetPath = z
  .string()
  .superRefine((path, ctx) => {
    const check = checkAssetPath(path);
    if (!check.ok) addViolation(ctx, check.code, check.message, check.hint);
  })
  .describe('Path of the asset: under assets/, only letters, digits and . _ - /, ending in .md .txt .json .yaml or .yml.');

const ObjectKeyText = z
  .string()
  .superRefine((key, ctx) => {
    if (parseObjectKey(key) === undefined) {
      addViolation(
        ctx,
        CONTRACT,
        `"${key}" does not name a package object.`,
        'Write workflow:<workflowId>, graph:<workflowId>, step:<workflowId>/<nodeId>, agent:<agentId> or asset:<path>.',
      );
    }
  })
  .describe('An object key: workflow:<wid>, graph:<wid>, step:<wid>/<nodeId>, agent:<agentId> or asset:<path>.');

const Extensions = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('Free-form extra data for tools: the one place for fields outside this contract. Ignored by validation and apply.');

const Reason = z.string().optional().describe('Why this change is made, in one sentence for the person reviewing it.');

const Count = z.int().min(0);
const Revision = z.int().min(0);

// ---- targets and payloads -------------------------------------------------------------------

const WorkflowTarget = z.strictObject({ workflowId: id('Id of the workflow.') });
const StepTarget = z.strictObject({
  workflowId: id('Id of the workflow that holds the step.'),
  nodeId: id('Id of the graph node the step file belongs to.'),
});
const AgentTarget = z.strictObject({ agentId: id('Id of the agent in agents.json.') });
const AssetTarget = z.strictObject({ path: AssetPath });

const WorkflowPayload = z
  .strictObject({
    workflowMd: payloadText('The full new text of workflow.md, frontmatter included.').optional(),
    graphJson: z
      .union([
        payloadText('The full new workflow.graph.json as JSON text.'),
        jsonObject('The full new workflow.graph.json as a JSON object.'),
      ])
      .optional()
      .describe('The full new workflow.graph.json, as JSON text or as an object.'),
  })
  .refine((payload) => payload.workflowMd !== undefined || payload.graphJson !== undefined, {
    message: 'A workflow upsert needs "workflowMd", "graphJson" or both.',
    params: { code: CONTRACT, hint: 'Add the new workflow.md text as "workflowMd", or the new graph as "graphJson".' },
  })
  .describe('New contents of workflow.md and/or workflow.graph.json (at least one).');
const StepPayload = z
  .strictObject({ stepMarkdown: payloadText('The full new step file: frontmatter, ## Goal, ## Instructions.') })
  .describe('New contents of the step file.');
const AgentPayload = z
  .strictObject({
    agent: jsonObject('The full agent definition, as one entry of agents.json. Its "id", if given, equals target.agentId.'),
  })
  .describe('The new agent definition.');
const AssetPayload = z
  .strictObject({ content: payloadText('The full new text of the asset file.') })
  .describe('New contents of the asset.');

// ---- operations -----------------------------------------------------------------------------

/** Fields every operation may carry besides its kind, target and payload. */
const OperationNotes = { reason: Reason, extensions: Extensions };

const WorkflowUpsert = z
  .strictObject({
    op: z.literal('upsert'),
    targetType: z.literal('workflow'),
    target: WorkflowTarget,
    payload: WorkflowPayload,
    ...OperationNotes,
  })
  .describe('Create or replace workflow.md and/or the graph of a workflow. Deleting a whole workflow is not supported.');
const StepUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('step'), target: StepTarget, payload: StepPayload, ...OperationNotes })
  .describe('Create or replace a step file.');
const StepDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('step'), target: StepTarget, ...OperationNotes })
  .describe('Delete a step file.');
const AgentUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('agent'), target: AgentTarget, payload: AgentPayload, ...OperationNotes })
  .describe('Create or replace an agent in agents.json.');
const AgentDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('agent'), target: AgentTarget, ...OperationNotes })
  .describe('Remove an agent from agents.json.');
const AssetUpsert = z
  .strictObject({ op: z.literal('upsert'), targetType: z.literal('asset'), target: AssetTarget, payload: AssetPayload, ...OperationNotes })
  .describe('Create or replace an asset file.');
const AssetDelete = z
  .strictObject({ op: z.literal('delete'), targetType: z.literal('asset'), target: AssetTarget, ...OperationNotes })
  .describe('Delete an asset file.');

export const ChangeOperation = z
  .discriminatedUnion('targetType', [
    WorkflowUpsert,
    z.discriminatedUnion('op', [StepUpsert, StepDelete]),
    z.discriminatedUnion('op', [AgentUpsert, AgentDelete]),
    z.discriminatedUnion('op', [AssetUpsert, AssetDelete]),
  ])
  .describe('One change to one package object. An upsert carries the full new content in "payload"; a delete has no payload.');
export type ChangeOperation = z.infer<typeof ChangeOperation>;

export const ChangeImpact = z
  .strictObject({
    objects: z.array(ObjectKeyText).describe('Every object the change set touches, including ones outside the target.'),
    counts: z
      .strictObject({ workflow: Count.optional(), step: Count.optional(), agent: Count.optional(), asset: Count.optional() })
      .optional()
      .describe('How many objects of each kind change.'),
    riskFlags: z.array(z.string()).optional().describe('Short notes on risks the reviewer should know about.'),
    requiresConfirmation: z.boolean().optional().describe('Whether a person must confirm before applying (they always do).'),
  })
  .describe('What the change set affects, shown to the person who reviews it.');
export type ChangeImpact = z.infer<typeof ChangeImpact>;

export const ChangeRevisions = z
  .strictObject({
    workflowRevision: Revision.optional(),
    agentsRevision: Revision.optional(),
    assetsRevision: Revision.optional(),
  })
  .describe('Revisions of the stored package the change was prepared against, as the read tools reported them.');
export type ChangeRevisions = z.infer<typeof ChangeRevisions>;

export const ChangeSet = z
  .strictObject({
    schemaVersion: z.literal(CHANGE_SET_SCHEMA_VERSION).describe('Always "1.0".'),
    targetType: TargetType.describe("The session's target type."),
    mode: SessionMode.describe("The session's mode."),
    operations: z
      .array(ChangeOperation)
      .min(1)
      .max(MAX_CHANGE_OPERATIONS)
      .describe('The changes: at least one, at most 200, at most one per object.'),
    impact: ChangeImpact,
    revisions: ChangeRevisions.optional(),
    extensions: Extensions,
  })
  .describe('A proposed change to the package. It is staged for review; only a person can apply it.');
/** After `parseChangeSet`, a workflow payload's `graphJson` is always a string. */
export type ChangeSet = z.infer<typeof ChangeSet>;

export type ChangeSetParse =
  | { ok: true; changeSet: ChangeSet; warnings: ContractViolation[] }
  | { ok: false; errors: ContractViolation[]; warnings: ContractViolation[] };

export interface ChangeSetExpectation {
  targetType?: TargetType;
  mode?: SessionMode;
}

/** The object keys an operation writes (shared/object-keys.ts). */
export function operationKeys(op: ChangeOperation): string[] {
  switch (op.targetType) {
    case 'workflow': {
      const keys: string[] = [];
      if (op.payload.workflowMd !== undefined) keys.push(formatObjectKey({ kind: 'workflow', workflowId: op.target.workflowId }));
      if (op.payload.graphJson !== undefined) keys.push(formatObjectKey({ kind: 'graph', workflowId: op.target.workflowId }));
      return keys;
    }
    case 'step':
      return [formatObjectKey({ kind: 'step', workflowId: op.target.workflowId, nodeId: op.target.nodeId })];
    case 'agent':
      return [formatObjectKey({ kind: 'agent', agentId: op.target.agentId })];
    case 'asset':
      return [formatObjectKey({ kind: 'asset', path: op.target.path })];
    default: {
      const never: never = op;
      throw new Error(`unknown operation ${String(never)}`);
    }
  }
}

// ---- reading zod issues ---------------------------------------------------------------------

type Issue = z.core.$ZodIssue;
/** Renders a data path for people; the legacy shape maps operation paths back to where they came from. */
type RenderPath = (path: DataPath) => string;

const renderPath: RenderPath = (path) => (path.length === 0 ? '' : describePath(path));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'object' ? 'an object' : typeof value;
}

function expectedWord(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    array: 'a list',
    object: 'an object',
    record: 'an object',
    boolean: 'true or false',
    number: 'a number',
    int: 'a whole number',
  };
  return words[expected] ?? expected;
}

function listValues(values: readonly unknown[]): string {
  return values.map((v) => preview(v)).join(', ');
}

/** " for a step upsert" when `path` lies inside an operation whose kind can be read. */
function operationContext(root: unknown, path: DataPath): string {
  if (path[0] !== 'operations' || typeof path[1] !== 'number') return '';
  const found = lookup(root, path.slice(0, 2));
  if (!found.found || !isRecord(found.value)) return '';
  const { targetType, op } = found.value;
  if (!TargetType.safeParse(targetType).success || (op !== 'upsert' && op !== 'delete')) return '';
  return ` for ${withArticle(String(targetType))} ${op}`;
}

/** "a step", "an agent". */
function withArticle(word: string): string {
  return `${/^[aeiou]/u.test(word) ? 'an' : 'a'} ${word}`;
}

/** The field names the object schema at `path` allows, choosing union members by the data found there. */
function allowedFields(schema: z.ZodType, root: unknown, path: DataPath): string[] {
  let current: z.ZodType | undefined = schema;
  let value: unknown = root;
  for (let i = 0; i <= path.length && current !== undefined; i++) {
    current = resolveMember(current, value);
    if (i === path.length) break;
    const key = path[i]!;
    if (current instanceof z.ZodObject && typeof key === 'string') current = current.shape[key] as z.ZodType | undefined;
    else if (current instanceof z.ZodArray && typeof key === 'number') current = current.element as z.ZodType;
    else return [];
    value = isRecord(value) || Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function resolveMember(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  if (current instanceof z.ZodDiscriminatedUnion) {
    const key = current.def.discriminator;
    const wanted = isRecord(value) ? value[key] : undefined;
    const member = (current.options as readonly z.ZodType[]).find((o) => o._zod.propValues?.[key]?.has(wanted as never));
    return member === undefined ? undefined : resolveMember(member, value);
  }
  if (current instanceof z.ZodUnion) {
    const members = current.options as readonly z.ZodType[];
    return members.find((o) => (isRecord(value) ? o instanceof z.ZodObject || o instanceof z.ZodRecord : true));
  }
  return current;
}

function unknownFieldHint(schema: z.ZodType, root: unknown, path: DataPath): string {
  const allowed = allowedFields(schema, root, path);
  if (allowed.length === 0) return 'Remove it.';
  const extra = allowed.includes('extensions') ? ' Put anything else inside "extensions".' : ' Remove it.';
  return `Allowed fields here: ${allowed.filter((f) => f !== 'extensions').join(', ')}.${extra}`;
}

/** The values a discriminated union accepts, when `issue` says none of them matched. */
function discriminatorOptions(issue: Issue): readonly unknown[] | undefined {
  return issue.code === 'invalid_union' && 'options' in issue ? issue.options : undefined;
}

/** Violations for one zod issue; several for a list of unknown fields. */
function issueViolations(
  issue: Issue,
  root: unknown,
  schema: z.ZodType,
  render: RenderPath,
  base: DataPath = [],
): ContractViolation[] {
  const path: DataPath = [...base, ...(issue.path as DataPath)];
  const name = render(path) || 'The change set';
  const parent = path.slice(0, -1);
  const key = path[path.length - 1];
  const found = lookup(root, path);
  const value = found.found ? found.value : undefined;
  const at = (where: DataPath) => (render(where) === '' ? '' : `${render(where)}: `);
  const make = (message: string, hint?: string, where: DataPath = path, code: ErrorCode = CONTRACT): ContractViolation => ({
    code,
    message,
    path: render(where),
    hints: hint === undefined ? [] : [hint],
  });
  const context = operationContext(root, path);

  if (!found.found && path.length > 0 && issue.code !== 'unrecognized_keys' && issue.code !== 'custom') {
    const options = discriminatorOptions(issue);
    const allowed = options === undefined ? undefined : `Allowed values: ${listValues(options)}.`;
    const what = issue.code === 'invalid_type' ? ` (${expectedWord(issue.expected)})` : '';
    return [make(`${at(parent)}"${String(key)}" is required${context}.`, allowed ?? `Add "${String(key)}"${what}.`)];
  }
  switch (issue.code) {
    case 'invalid_type':
      if (path.length === 0) return [make(`The change set must be a JSON object, but it is ${kindOf(value)}.`)];
      return [make(`${name} must be ${expectedWord(issue.expected)}${context}, but it is ${kindOf(value)}.`)];
    case 'unrecognized_keys':
      return issue.keys.map((extra) => {
        const where = [...path, extra];
        if (extra === 'payload' && context.endsWith(' delete')) {
          return make(`${at(path)}"payload" is not allowed${context}.`, 'A delete needs only op, targetType and target.', where);
        }
        return make(`${at(path)}unknown field "${extra}".`, unknownFieldHint(schema, root, path), where);
      });
    case 'invalid_value': {
      const expected = issue.values.length === 1 ? preview(issue.values[0]) : `one of ${listValues(issue.values)}`;
      const hint = `Allowed values: ${listValues(issue.values)}.`;
      return [make(`${name} must be ${expected}${context}, but it is ${preview(value)}.`, hint)];
    }
    case 'invalid_union': {
      const options = discriminatorOptions(issue);
      if (options !== undefined) {
        const allowed = listValues(options);
        return [make(`${name} must be one of ${allowed}, but it is ${preview(value)}.`, `Allowed values: ${allowed}.`)];
      }
      // A member whose type fits but whose checks failed says more than "matches no shape".
      const wrongType = (b: Issue): b is z.core.$ZodIssueInvalidType => b.code === 'invalid_type' && b.path.length === 0;
      const fitting = issue.errors.find((branch) => branch.length > 0 && !branch.some(wrongType));
      if (fitting !== undefined) return fitting.flatMap((inner) => issueViolations(inner, root, schema, render, path));
      const shapes = issue.errors.flatMap((branch) => branch.filter(wrongType)).map((b) => expectedWord(b.expected));
      const expected = shapes.length > 0 ? shapes.join(' or ') : 'one of the allowed shapes';
      return [make(`${name} must be ${expected}, but it is ${kindOf(value)}.`)];
    }
    case 'invalid_format':
      if (issue.format === 'regex') return [make(`${name} is not a valid id: ${preview(value)}.`, ID_HINT)];
      return [make(`${name} is not in the required form: ${preview(value)}.`)];
    case 'too_big':
      if (issue.origin === 'array') {
        return [
          make(
            `${name} has ${Array.isArray(value) ? value.length : 'too many'} items; at most ${Number(issue.maximum)} are allowed.`,
            'Split the change into several smaller change sets.',
          ),
        ];
      }
      return [make(`${name} is too large (at most ${Number(issue.maximum)}).`)];
    case 'too_small':
      if (issue.origin === 'array') {
        const n = Number(issue.minimum);
        return [make(`${name} must have at least ${n} item${n === 1 ? '' : 's'}.`, 'Add at least one operation.')];
      }
      return [make(`${name} must be at least ${Number(issue.minimum)}, but it is ${preview(value)}.`)];
    case 'custom': {
      const params = issue.params as Partial<ViolationParams> | undefined;
      const location = render(path);
      const message = location === '' ? issue.message : `${location}: ${issue.message}`;
      return [make(message, params?.hint, path, params?.code ?? CONTRACT)];
    }
    default:
      return [make(`${name}: ${issue.message}`)];
  }
}

// ---- the seed's older shape -----------------------------------------------------------------

const LegacyStep = z.strictObject({
  workflowId: z.union([id('Workflow id'), z.int().min(0)]),
  nodeId: id('Node id'),
  stepMarkdown: payloadText('Step file.'),
  reason: Reason,
});
const LegacyAssetUpsert = z.strictObject({ path: AssetPath, content: payloadText('Asset text.'), reason: Reason });
const LegacyAssetDelete = z.union([AssetPath, z.strictObject({ path: AssetPath, reason: Reason })]);
const LegacyAgent = z.looseObject({ id: id('Agent id') }).superRefine((agent, ctx) => checkSize(jsonBytes(agent), ctx));
const LegacyChanges = z.strictObject({
  steps: z.array(LegacyStep).optional(),
  assets: z
    .strictObject({ upsert: z.array(LegacyAssetUpsert).optional(), delete: z.array(LegacyAssetDelete).optional() })
    .optional(),
  agents: z.strictObject({ upsert: z.array(LegacyAgent).optional(), delete: z.array(id('Agent id')).optional() }).optional(),
});
const LegacyChangeSet = z.strictObject({
  targetType: TargetType,
  mode: SessionMode,
  changeSet: LegacyChanges,
  impact: z
    .strictObject({
      updated: z.array(ObjectKeyText).optional(),
      risks: z.array(z.string()).optional(),
      requiresConfirmation: z.boolean().optional(),
    })
    .optional(),
  revisions: ChangeRevisions.optional(),
  extensions: Extensions,
});

const LEGACY_CHANGE_FIELDS = ['steps', 'assets', 'agents'] as const;

function isLegacyShape(data: Record<string, unknown>): boolean {
  return !Object.hasOwn(data, 'operations') && ['changeSet', ...LEGACY_CHANGE_FIELDS].some((k) => Object.hasOwn(data, k));
}

type LegacyConversion =
  | { ok: true; candidate: Record<string, unknown>; render: RenderPath }
  | { ok: false; errors: ContractViolation[] };

/** Converts the older shape to a current-shape candidate; its paths are rendered as the sender wrote them. */
function convertLegacy(data: Record<string, unknown>): LegacyConversion {
  const wrapped = Object.hasOwn(data, 'changeSet');
  let input = data;
  if (!wrapped) {
    // Move the top-level steps/assets/agents into the wrapper, so one schema reads both forms.
    const changes: Record<string, unknown> = {};
    input = { changeSet: changes };
    for (const [field, value] of Object.entries(data)) {
      if ((LEGACY_CHANGE_FIELDS as readonly string[]).includes(field)) changes[field] = value;
      else input[field] = value;
    }
  }
  const legacyRender: RenderPath = (path) => renderPath(!wrapped && path[0] === 'changeSet' ? path.slice(1) : path);
  const parsed = LegacyChangeSet.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.flatMap((issue) => issueViolations(issue, input, LegacyChangeSet, legacyRender));
    return { ok: false, errors };
  }
  const legacy = parsed.data;
  const operations: Record<string, unknown>[] = [];
  const sources: DataPath[] = [];
  const add = (source: DataPath, operation: Record<string, unknown>, reason: string | undefined) => {
    operations.push(reason === undefined ? operation : { ...operation, reason });
    sources.push(['changeSet', ...source]);
  };
  legacy.changeSet.steps?.forEach((step, i) => {
    const target = { workflowId: String(step.workflowId), nodeId: step.nodeId };
    add(['steps', i], { op: 'upsert', targetType: 'step', target, payload: { stepMarkdown: step.stepMarkdown } }, step.reason);
  });
  legacy.changeSet.agents?.upsert?.forEach((agent, i) => {
    add(['agents', 'upsert', i], { op: 'upsert', targetType: 'agent', target: { agentId: agent.id }, payload: { agent } }, undefined);
  });
  legacy.changeSet.agents?.delete?.forEach((agentId, i) =>
    add(['agents', 'delete', i], { op: 'delete', targetType: 'agent', target: { agentId } }, undefined),
  );
  legacy.changeSet.assets?.upsert?.forEach((asset, i) => {
    const operation = { op: 'upsert', targetType: 'asset', target: { path: asset.path }, payload: { content: asset.content } };
    add(['assets', 'upsert', i], operation, asset.reason);
  });
  legacy.changeSet.assets?.delete?.forEach((entry, i) => {
    const { path, reason } = typeof entry === 'string' ? { path: entry, reason: undefined } : entry;
    add(['assets', 'delete', i], { op: 'delete', targetType: 'asset', target: { path } }, reason);
  });

  const impact: Record<string, unknown> = { objects: legacy.impact?.updated ?? [] };
  if (legacy.impact?.risks !== undefined) impact.riskFlags = legacy.impact.risks;
  if (legacy.impact?.requiresConfirmation !== undefined) impact.requiresConfirmation = legacy.impact.requiresConfirmation;
  const candidate: Record<string, unknown> = {
    schemaVersion: CHANGE_SET_SCHEMA_VERSION,
    targetType: legacy.targetType,
    mode: legacy.mode,
    operations,
    impact,
  };
  if (legacy.revisions !== undefined) candidate.revisions = legacy.revisions;
  if (legacy.extensions !== undefined) candidate.extensions = legacy.extensions;
  // An operation's path is reported as the legacy entry it came from.
  const render: RenderPath = (path) => {
    const source = path[0] === 'operations' && typeof path[1] === 'number' ? sources[path[1]] : undefined;
    return legacyRender(source ?? path);
  };
  return { ok: true, candidate, render };
}

// ---- the contract's semantic rules ----------------------------------------------------------

function violation(code: ErrorCode | string, path: string, message: string, hint?: string): ContractViolation {
  return { code, message, path, hints: hint === undefined ? [] : [hint] };
}

function semanticViolations(
  candidate: Record<string, unknown>,
  operations: ReadonlyArray<{ index: number; op: ChangeOperation }>,
  expect: ChangeSetExpectation,
  render: RenderPath,
): ContractViolation[] {
  const errors: ContractViolation[] = [];
  const where = (index: number, ...rest: DataPath) => render(['operations', index, ...rest]);

  const writers = new Map<string, number>();
  for (const { index, op } of operations) {
    for (const key of operationKeys(op)) {
      const first = writers.get(key);
      if (first === undefined) writers.set(key, index);
      else {
        errors.push(
          violation(
            CONTRACT,
            where(index),
            `${where(index)} changes ${key}, which ${where(first)} already changes.`,
            'Change each object in one operation only: merge the two.',
          ),
        );
      }
    }
  }

  const optimizingAgent = candidate.targetType === 'agent' && candidate.mode === 'optimize';
  for (const { index, op } of operations) {
    if (op.targetType !== 'agent' || op.op !== 'upsert' || !Object.hasOwn(op.payload.agent, 'id')) continue;
    const agentId = op.payload.agent.id;
    if (agentId === op.target.agentId) continue;
    const path = where(index, 'payload', 'agent', 'id');
    const hint = `Set "id" to "${op.target.agentId}", or leave it out.`;
    errors.push(
      optimizingAgent
        ? violation(
            CONTRACT,
            path,
            `Optimizing an agent never changes its agentId. ${where(index)} targets "${op.target.agentId}", ` +
              `but the agent's id is ${preview(agentId)}.`,
            hint,
          )
        : violation(CONTRACT, path, `${path} (${preview(agentId)}) must equal target.agentId ("${op.target.agentId}").`, hint),
    );
  }

  const { targetType, mode } = candidate;
  if (expect.targetType !== undefined && TargetType.safeParse(targetType).success && targetType !== expect.targetType) {
    errors.push(
      violation(
        'AI_TARGET_CONTEXT_MISMATCH',
        'targetType',
        `The change set targets ${withArticle(String(targetType))}, but this session works on ${withArticle(expect.targetType)}.`,
        `Set "targetType" to "${expect.targetType}".`,
      ),
    );
  }
  if (expect.mode !== undefined && SessionMode.safeParse(mode).success && mode !== expect.mode) {
    errors.push(
      violation(
        'AI_TARGET_CONTEXT_MISMATCH',
        'mode',
        `The change set is in ${String(mode)} mode, but this session is in ${expect.mode} mode.`,
        `Set "mode" to "${expect.mode}".`,
      ),
    );
  }
  return errors;
}

/** Object graphs become the text that is stored: pretty-printed with a final newline. */
function normalise(changeSet: ChangeSet): ChangeSet {
  const operations = changeSet.operations.map((op): ChangeOperation => {
    if (op.targetType !== 'workflow' || op.payload.graphJson === undefined || typeof op.payload.graphJson === 'string') return op;
    return { ...op, payload: { ...op.payload, graphJson: JSON.stringify(op.payload.graphJson, null, 2) + '\n' } };
  });
  return { ...changeSet, operations };
}

/**
 * Checks a proposed change set (an object or its JSON text) and reports every violation: the
 * schema's, AI_APPLY_UNSUPPORTED for deleting a workflow, two operations on one object, an agent
 * id that differs from its target, and AI_TARGET_CONTEXT_MISMATCH against `expect`.
 */
export function parseChangeSet(input: unknown, expect: ChangeSetExpectation = {}): ChangeSetParse {
  const warnings: ContractViolation[] = [];
  let data = input;
  if (typeof input === 'string') {
    try {
      data = JSON.parse(input);
    } catch {
      return {
        ok: false,
        errors: [violation(CONTRACT, '', 'The change set is not valid JSON.', 'Send exactly one JSON object, with nothing around it.')],
        warnings,
      };
    }
  }
  if (!isRecord(data)) {
    const message = `The change set must be a JSON object, but it is ${kindOf(data)}.`;
    return { ok: false, errors: [violation(CONTRACT, '', message)], warnings };
  }

  let candidate = data;
  let render = renderPath;
  if (isLegacyShape(data)) {
    warnings.push(
      violation(
        LEGACY_SHAPE_WARNING,
        '',
        'This change set uses the older {steps, assets} shape; it was converted to the current one ' +
          '(schemaVersion "1.0" with operations[]).',
        'Send schemaVersion "1.0" with an operations[] list next time.',
      ),
    );
    const converted = convertLegacy(data);
    if (!converted.ok) return { ok: false, errors: converted.errors, warnings };
    candidate = converted.candidate;
    render = converted.render;
  }

  if (Object.hasOwn(candidate, 'schemaVersion') && candidate.schemaVersion !== CHANGE_SET_SCHEMA_VERSION) {
    return {
      ok: false,
      errors: [
        violation(
          'AI_CHANGESET_SCHEMA_UNSUPPORTED',
          'schemaVersion',
          `Change set version ${preview(candidate.schemaVersion)} is not supported.`,
          `Use "schemaVersion": "${CHANGE_SET_SCHEMA_VERSION}".`,
        ),
      ],
      warnings,
    };
  }

  const errors: ContractViolation[] = [];
  const rawOperations = Array.isArray(candidate.operations) ? (candidate.operations as unknown[]) : [];
  const workflowDeletes = new Set<number>();
  rawOperations.forEach((raw, index) => {
    if (!isRecord(raw) || raw.op !== 'delete' || raw.targetType !== 'workflow') return;
    workflowDeletes.add(index);
    errors.push(
      violation(
        'AI_APPLY_UNSUPPORTED',
        render(['operations', index]),
        'Deleting a whole workflow through the AI is not supported.',
        'Delete the workflow yourself from the project page, or change its steps instead.',
      ),
    );
  });

  const parsed = ChangeSet.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const index = issue.path[0] === 'operations' ? issue.path[1] : undefined;
      if (typeof index === 'number' && workflowDeletes.has(index)) continue;
      errors.push(...issueViolations(issue, candidate, ChangeSet, render));
    }
  }

  const operations = rawOperations.flatMap((raw, index) => {
    const op = ChangeOperation.safeParse(raw);
    return op.success ? [{ index, op: op.data }] : [];
  });
  errors.push(...semanticViolations(candidate, operations, expect, render));

  if (errors.length > 0 || !parsed.success) return { ok: false, errors, warnings };
  return { ok: true, changeSet: normalise(parsed.data), warnings };
}
