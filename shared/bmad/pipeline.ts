/**
 * The one validation pipeline that import, export, the editors and the AI
 * stage/validate/apply flow all use. Stage 1 parses and shape-checks every file and stops the run
 * on any failure (`schemaFailed`); then the stages run in `order`, each over the parsed package and
 * each reporting every violation it finds. Callers append stages (4: impact boundary, 6: revision
 * comparison) through `options.stages`.
 */
import { bmadRulesStage } from './bmad-rules.ts';
import { buildReport } from './issues.ts';
import type { ValidationIssue, ValidationReport } from './issues.ts';
import type { BmadPackage } from './package.ts';
import { parsePackage } from './parse-package.ts';
import { referenceStage } from './reference-rules.ts';
import { securityStage } from './security-rules.ts';
import type { ValidationStage } from './stage.ts';

/** Stages 2, 3 and 5. */
export const DEFAULT_STAGES: readonly ValidationStage[] = [bmadRulesStage, referenceStage, securityStage];

export interface ValidateOptions {
  /** Extra stages, merged with DEFAULT_STAGES and run by `order` (ties keep their given order). */
  stages?: readonly ValidationStage[];
  /** Replace the defaults entirely (e.g. a caller that only wants stage 1 and its own stages). */
  replaceDefaultStages?: boolean;
}

export function validatePackage(pkg: BmadPackage, options: ValidateOptions = {}): ValidationReport {
  const parse = parsePackage(pkg);
  if (!parse.ok) return buildReport(parse.issues, true);
  const issues: ValidationIssue[] = [];
  const stages = [...(options.replaceDefaultStages ? [] : DEFAULT_STAGES), ...(options.stages ?? [])]
    .map((stage, index) => ({ stage, index }))
    .sort((a, b) => a.stage.order - b.stage.order || a.index - b.index)
    .map(({ stage }) => stage);
  const ctx = {
    pkg,
    parsed: parse.parsed,
    issues,
    report: (...found: ValidationIssue[]) => {
      issues.push(...found);
    },
  };
  for (const stage of stages) stage.run(ctx);
  return buildReport(issues, false);
}
