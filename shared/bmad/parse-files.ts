/**
 * Stage 1 for one file: text → parsed, shape-checked data, or the issues that say why not. The
 * pipeline and the single-file validators (editors' live validation) both start here.
 */
import type * as z from 'zod';
import { parseFrontmatter } from './frontmatter.ts';
import type { FrontmatterProblem } from './frontmatter.ts';
import { errorIssue } from './issues.ts';
import type { IssueCode, ValidationIssue } from './issues.ts';
import { parseJsonText, tooLargeIssue } from './json-text.ts';
import { MAX_TEXT_FILE_BYTES, exceedsUtf8Bytes, utf8ByteLength } from './limits.ts';
import { AgentsFile, BmadManifest, StepFrontmatter, WorkflowFrontmatter, WorkflowGraph } from './models.ts';
import { schemaIssues } from './schema-issues.ts';
import type { DataSource } from './schema-issues.ts';

export type FileParse<T> = { ok: true; data: T } | { ok: false; issues: ValidationIssue[] };

export interface MarkdownFile<F> {
  frontmatter: F;
  body: string;
  /** 1-based line of the file on which the body starts. */
  bodyStartLine: number;
}

/** Shape-checks already parsed data against a model; every violation becomes an issue. */
export function checkShape<S extends z.ZodType>(
  schema: S,
  data: unknown,
  filePath: string,
  source: DataSource = 'json',
): FileParse<z.infer<S>> {
  const result = schema.safeParse(data);
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, issues: schemaIssues(result.error.issues, data, schema, filePath, source) };
}

function parseJsonFile<S extends z.ZodType>(schema: S, text: string, filePath: string): FileParse<z.infer<S>> {
  const parsed = parseJsonText(text, filePath);
  if (!parsed.ok) return parsed;
  return checkShape(schema, parsed.value, filePath, 'json');
}

export const parseManifestFile = (text: string, filePath = 'bmad.json') => parseJsonFile(BmadManifest, text, filePath);
export const parseAgentsFile = (text: string, filePath = 'agents.json') => parseJsonFile(AgentsFile, text, filePath);
export const parseGraphFile = (text: string, filePath = 'workflow.graph.json') => parseJsonFile(WorkflowGraph, text, filePath);

function problemIssue(problem: FrontmatterProblem, filePath: string, missingCode: IssueCode, invalidCode: IssueCode) {
  const code = problem.kind === 'missing' || problem.kind === 'not-at-start' ? missingCode : invalidCode;
  return errorIssue(code, filePath, problem.message, { hint: problem.hint });
}

function parseMarkdownFile<S extends z.ZodType>(
  schema: S,
  text: string,
  filePath: string,
  missingCode: IssueCode,
  invalidCode: IssueCode,
): FileParse<MarkdownFile<z.infer<S>>> {
  if (exceedsUtf8Bytes(text, MAX_TEXT_FILE_BYTES)) {
    return { ok: false, issues: [tooLargeIssue(filePath, utf8ByteLength(text), MAX_TEXT_FILE_BYTES)] };
  }
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) {
    return { ok: false, issues: parsed.problems.map((p) => problemIssue(p, filePath, missingCode, invalidCode)) };
  }
  const shape = checkShape(schema, parsed.value.data, filePath, 'yaml');
  if (!shape.ok) return shape;
  return { ok: true, data: { frontmatter: shape.data, body: parsed.value.body, bodyStartLine: parsed.value.bodyStartLine } };
}

export const parseWorkflowMdFile = (text: string, filePath = 'workflow.md') =>
  parseMarkdownFile(WorkflowFrontmatter, text, filePath, 'WORKFLOW_MISSING_FRONTMATTER', 'WORKFLOW_INVALID_FRONTMATTER');

export const parseStepFile = (text: string, filePath: string) =>
  parseMarkdownFile(StepFrontmatter, text, filePath, 'STEP_MISSING_FRONTMATTER', 'STEP_INVALID_FRONTMATTER');
