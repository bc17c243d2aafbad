/**
 * The contract of a validation stage. Stage 1 (parse and shape) is built into the pipeline; every
 * later stage is a ValidationStage run over the parsed package, in `order`. Stages 4 (impact
 * boundary) and 6 (revision comparison) belong to the AI changeSet module and are passed in
 * through `validatePackage(pkg, {stages})`, e.g. `{id: 'impact-boundary', order: 4, run}`.
 */
import type { ValidationIssue } from './issues.ts';
import type { BmadPackage } from './package.ts';
import type { ParsedPackage } from './parse-package.ts';

export interface StageContext {
  pkg: BmadPackage;
  /** Every file of `pkg`, parsed and shape-checked by stage 1. */
  parsed: ParsedPackage;
  /** Issues reported so far by earlier stages (stage 1 reports none when the stages run). */
  readonly issues: readonly ValidationIssue[];
  report(...issues: ValidationIssue[]): void;
}

export interface ValidationStage {
  /** Stable name, e.g. `bmad-rules`. */
  id: string;
  /** Position in the pipeline (stage 1, parsing, always runs first): 2 BMAD rules, 3 references, 4 impact, 5 security, 6 revisions. */
  order: number;
  run(ctx: StageContext): void;
}
