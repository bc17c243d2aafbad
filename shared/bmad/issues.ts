/**
 * The validation issue model and every issue code the .bmad validator emits. Codes that are also
 * API error codes (STEP_*, AGENT_NOT_FOUND, ASSET_*) come from shared/errors.ts; the rest are
 * stable strings of our own, safe to match on in the UI and in tests.
 */
import type { ErrorCode, ErrorDetail } from '../errors.ts';

/** Issue code → what it means. The stage that emits it is in brackets. */
export const ISSUE_CODES = {
  // [1] parse and shape
  FILE_MISSING: 'A file the package needs is not there.',
  FILE_TOO_LARGE: 'A package text file is larger than the limit.',
  JSON_PARSE_ERROR: 'A .json file is not valid JSON.',
  STEP_MISSING_FRONTMATTER: 'A step file does not start with a --- frontmatter block.',
  STEP_INVALID_FRONTMATTER: 'A step frontmatter block is not valid YAML (or is too large, or not a mapping).',
  WORKFLOW_MISSING_FRONTMATTER: 'workflow.md does not start with a --- frontmatter block.',
  WORKFLOW_INVALID_FRONTMATTER: 'The workflow.md frontmatter is not valid YAML (or is too large, or not a mapping).',
  SCHEMA_REQUIRED: 'A required field is missing.',
  SCHEMA_TYPE: 'A field has the wrong type.',
  SCHEMA_UNKNOWN_FIELD: 'A field is not allowed at this place (closed object).',
  SCHEMA_ENUM: 'A field has a value outside its allowed list.',
  SCHEMA_PATTERN: 'A string does not have the required form (id, schemaVersion, SemVer, sha256).',
  SCHEMA_FORMAT: 'A date-time is not RFC 3339, or a number is not a positive integer.',
  SCHEMA_TOO_SMALL: 'A string is empty or a list has too few items.',
  SCHEMA_ONE_OF: 'A value matches none of the allowed shapes.',
  SCHEMA_INVALID: 'Any other schema violation.',
  PKG_NO_WORKFLOW: 'The package contains no workflow.',
  // [2] BMAD rules
  MANIFEST_ENTRY_NOT_FOUND: 'bmad.json `entry` points at a file the package does not contain.',
  WORKFLOW_INVALID_ID: 'A workflow id does not match the id pattern.',
  WORKFLOW_DUPLICATE_ID: 'Two workflows share an id.',
  WORKFLOW_STEPS_INDEX_BROKEN_LINK: '(warning) A `## Steps Index` link in workflow.md points at no file.',
  WORKFLOW_STATE_UNKNOWN_NODE: '(warning) currentNodeId or stepsCompleted names a node the graph does not have.',
  AGENT_DUPLICATE_ID: 'Two agents share an id.',
  GRAPH_DUPLICATE_NODE_ID: 'Two nodes share an id.',
  GRAPH_DUPLICATE_EDGE_ID: 'Two edges share an id.',
  GRAPH_ENTRY_NOT_FOUND: 'entryNodeId names no node.',
  GRAPH_EDGE_UNKNOWN_NODE: "An edge's from/to names no node.",
  GRAPH_NO_START_NODE: 'Every node has an incoming edge, so the graph has no start.',
  GRAPH_MULTIPLE_START_NODES: 'A node other than the entry has no incoming edges.',
  GRAPH_START_NOT_ENTRY: 'The entry node has incoming edges while another node is the start.',
  GRAPH_CYCLE_MISSING_DECISION: 'A cycle passes through no decision node (cycle-missing-decision).',
  GRAPH_CYCLE_MISSING_EXIT: 'A cycle has no decision edge that leaves it (cycle-missing-exit).',
  GRAPH_DEFAULT_EDGE_MISSING: 'A node with several outgoing edges has no `isDefault: true` edge.',
  GRAPH_MULTIPLE_DEFAULT_EDGES: 'A node has more than one `isDefault: true` outgoing edge.',
  GRAPH_DECISION_TOO_FEW_EDGES: 'A decision node has fewer than two outgoing edges.',
  GRAPH_END_UNREACHABLE: '(warning) No `end` node can be reached from the entry.',
  GRAPH_NODE_UNREACHABLE: '(warning) A node cannot be reached from the entry.',
  STEP_MISSING_GOAL: 'The step body has no `## Goal` section.',
  STEP_MISSING_INSTRUCTIONS: 'The step body has no `## Instructions` section.',
  STEP_EMPTY_SECTION: '(warning) A Goal, Instructions or Completion section is empty.',
  STEP_DUPLICATE_SECTION: '(warning) A Goal, Instructions or Completion section appears twice.',
  STEP_TYPE_MISMATCH: "(warning) The step frontmatter `type` differs from its graph node's type.",
  STEP_AGENT_MISMATCH: "(warning) The step frontmatter `agentId` differs from its graph node's agentId.",
  STEP_TRANSITION_MISMATCH: '(warning) A step `transitions[].to` is not a successor of the node in the graph.',
  // [3] reference integrity
  STEP_FILE_MISSING: "A graph node's `file` is not a step file of the package.",
  STEP_NODE_ID_MISMATCH: "A step's frontmatter nodeId differs from the id of the node that uses it.",
  STEP_ORPHAN_FILE: '(warning) A step file is used by no graph node.',
  AGENT_NOT_FOUND: 'An agentId (graph node or step) names no agent in agents.json.',
  ASSET_MISSING: 'A step references an `assets/...` path the package does not contain.',
  // [5] security and paths
  ASSET_INVALID_PATH: 'An asset path breaks the path rules (see asset-path.ts).',
  ASSET_TOO_LARGE: 'An asset is larger than 256 KiB.',
  ASSET_LIMIT_REACHED: 'More than 200 assets, or more than 2 MiB of assets in total.',
  PATH_UNSAFE: 'A graph node file path is absolute, escapes the package or is not a .md file.',
  PKG_UNKNOWN_FILE: '(warning) A file is not part of the .bmad layout and will not be exported.',
  STEP_FILE_NOT_PORTABLE: '(warning) A step file name cannot be unpacked on Windows (":" from its id, * ? " < > |, a trailing dot or space, CON, NUL, …); the .bmad export renames it.',
  WORKFLOW_FOLDER_NOT_PORTABLE: '(warning) A workflow folder name cannot be unpacked on Windows (":" from its id, …); the .bmad export renames it.',
  // BMAD-METHOD import and export (shared/bmad-method)
  BMAD_FILE_SKIPPED: '(warning) An uploaded file is binary, or has an extension or name a package cannot keep; left out.',
  ASSET_RENAMED: '(warning) An imported asset had a name outside the ASCII path characters; it was given an ASCII name and the links to it were rewritten.',
  PROJECT_FILE_VALUE_IGNORED: '(warning) A value of assets/crewagent-project.json (the project name, domain profile, content language or a setting) is not valid; the import ignored it (project-file.ts).',
  BMAD_TOO_MANY_STEPS: 'A folder has more step files than can be imported.',
  BMAD_FRONTMATTER_INVALID: '(warning) A BMAD file frontmatter is not valid YAML, so its links were not read.',
  BMAD_FRONTMATTER_DUPLICATE_KEY: '(warning) A BMAD step frontmatter names a key twice; the earlier line is a comment until export.',
  BMAD_LINK_OUTSIDE: '(warning) A link leaves the uploaded folder; ignored.',
  BMAD_LINK_MISSING: '(warning) A link names a step file that is not there; ignored.',
  BMAD_LINK_TO_ENTRY: '(warning) A step links back to the entry step; kept in the text, not drawn as an edge.',
  BMAD_LINK_OTHER_WORKFLOW: '(warning) A step links a step of another workflow; ignored.',
  BMAD_ENTRY_GUESSED: '(warning) workflow.md names no first step; the first step file by name was taken.',
  BMAD_NO_STEPS: 'A workflow has no step files.',
  BMAD_STEP_ORPHAN: '(warning) A step file no workflow reaches; kept as a file, not a graph node.',
  BMAD_WORKFLOW_UNNAMED: '(warning) A workflow.md has no frontmatter name and no workflow.yaml names it; the workflow was named after its folder.',
  BMAD_STEPS_INLINE: '(warning) A workflow file has no step files and no <step> blocks; its whole text became one step.',
  BMAD_STEP_RENAMED: '(warning) A step file name is outside the ASCII path characters; the step got an ASCII node id and file name.',
  BMAD_AGENT_INCOMPLETE: '(warning) An agent file lacks required fields; placeholders were written.',
  BMAD_AGENT_PLACEHOLDER: '(warning) No agent file was uploaded; a placeholder agent was written.',
  BMAD_EXPORT_REWRITTEN: '(warning) On export, a file whose generated fields could not be found is written as stored.',
  BMAD_EXPORT_NOT_WRITTEN: '(warning) On export, something the BMAD-METHOD layout has no place for is left out.',
  BMAD_EXPORT_UNLINKED_EDGE: '(warning) On export, a graph edge no step file links to.',
} as const satisfies Record<string, string>;

export type IssueCode = keyof typeof ISSUE_CODES;
export type IssueSeverity = 'error' | 'warning';

export interface ValidationIssue {
  severity: IssueSeverity;
  /** One of ISSUE_CODES, or an API error code for stages added by other modules (e.g. AI_*). */
  code: IssueCode | ErrorCode;
  /** Path of the file inside the package, e.g. `workflows/x/steps/a.md`. */
  filePath: string;
  /** JSON pointer into the file's parsed data (JSON, or the frontmatter of a .md file). */
  pointer?: string;
  message: string;
  hint?: string;
  /**
   * The values in the message (ids, paths, counts), so an app can say it in its reader's language
   * (app/lib/i18n/en/issues.ts `detailed`). The English `message` stays what the model and the API read.
   */
  params?: IssueParams;
}

export type IssueParams = Record<string, string | number>;

export interface ValidationReport {
  /** No errors (warnings allowed). */
  valid: boolean;
  /** Stage 1 (parse and shape) failed, so the rule stages did not run. */
  schemaFailed: boolean;
  issues: ValidationIssue[];
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

type IssueExtras = { pointer?: string | undefined; hint?: string | undefined; params?: IssueParams | undefined };

function makeIssue(
  severity: IssueSeverity,
  code: IssueCode | ErrorCode,
  filePath: string,
  message: string,
  extras: IssueExtras = {},
): ValidationIssue {
  const issue: ValidationIssue = { severity, code, filePath, message };
  if (extras.pointer !== undefined) issue.pointer = extras.pointer;
  if (extras.hint !== undefined) issue.hint = extras.hint;
  if (extras.params !== undefined) issue.params = extras.params;
  return issue;
}

export function errorIssue(code: IssueCode | ErrorCode, filePath: string, message: string, extras?: IssueExtras) {
  return makeIssue('error', code, filePath, message, extras);
}

export function warningIssue(code: IssueCode | ErrorCode, filePath: string, message: string, extras?: IssueExtras) {
  return makeIssue('warning', code, filePath, message, extras);
}

export function buildReport(issues: ValidationIssue[], schemaFailed: boolean): ValidationReport {
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  return { valid: errors.length === 0, schemaFailed, issues, errors, warnings };
}

/** The `details[]` entry of a PKG_VALIDATION_FAILED (or AI_VALIDATION_FAILED) API error. */
export function toErrorDetail(issue: ValidationIssue): ErrorDetail {
  const detail: ErrorDetail = { code: issue.code, path: issue.filePath, message: issue.message };
  if (issue.pointer !== undefined) detail.pointer = issue.pointer;
  if (issue.hint !== undefined) detail.hint = issue.hint;
  if (issue.params !== undefined) detail.params = issue.params;
  return detail;
}
