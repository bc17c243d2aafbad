/**
 * The validation result of an AI change, in the shape `builder.change.validate` answers:
 * `{valid, schemaFailed, errors, warnings, status, meta: {allowWrite: false}}`. Built
 * from a pipeline report of the effective package; errors the stored package already had are
 * demoted to warnings, because the change did not cause them and must not be blocked by them.
 */
import type { ValidationIssue, ValidationReport } from '../bmad/issues.ts';
import type { ContractViolation } from './change-set.ts';

export interface ChangeValidationIssue {
  code: string;
  message: string;
  /** The file path, plus `#` and the JSON pointer when there is one; a change-set path for contract violations. */
  path: string;
  hints: string[];
  severity: 'error' | 'warning';
  /** The object key of the file, when the caller can tell. */
  objectKey?: string;
  /** The stored package already had this error, so it does not block applying the change. */
  preExisting?: boolean;
  /** The issue's values, for the app's words of its code (shared/bmad/issues.ts). */
  params?: Record<string, string | number>;
}

export interface ChangeValidation {
  valid: boolean;
  schemaFailed: boolean;
  errors: ChangeValidationIssue[];
  warnings: ChangeValidationIssue[];
  status: 'validated' | 'rejected';
  /** The model never writes: only a person applies, from the workbench. */
  meta: { allowWrite: false; errorCount: number; warningCount: number };
}

export interface ChangeValidationOptions {
  /** The report of the stored package without the overlay. */
  baseline?: ValidationReport;
  keyOfPath?: (filePath: string) => string | undefined;
  /** Change-set contract violations (stage 1), listed before the package's issues. */
  extraErrors?: ContractViolation[];
  extraWarnings?: ContractViolation[];
}

/** Two issues are the same problem when code, file, pointer and message all match. */
function sameProblemKey(issue: ValidationIssue): string {
  return JSON.stringify([issue.code, issue.filePath, issue.pointer ?? '', issue.message]);
}

function fromIssue(issue: ValidationIssue, keyOfPath: ChangeValidationOptions['keyOfPath']): ChangeValidationIssue {
  const out: ChangeValidationIssue = {
    code: issue.code,
    message: issue.message,
    path: issue.pointer === undefined ? issue.filePath : `${issue.filePath}#${issue.pointer}`,
    hints: issue.hint === undefined ? [] : [issue.hint],
    severity: issue.severity,
  };
  const objectKey = keyOfPath?.(issue.filePath);
  if (objectKey !== undefined) out.objectKey = objectKey;
  if (issue.params !== undefined) out.params = issue.params;
  return out;
}

function fromViolation(violation: ContractViolation, severity: 'error' | 'warning'): ChangeValidationIssue {
  return { code: violation.code, message: violation.message, path: violation.path, hints: [...violation.hints], severity };
}

function finish(schemaFailed: boolean, errors: ChangeValidationIssue[], warnings: ChangeValidationIssue[]): ChangeValidation {
  const valid = errors.length === 0 && !schemaFailed;
  return {
    valid,
    schemaFailed,
    errors,
    warnings,
    status: valid ? 'validated' : 'rejected',
    meta: { allowWrite: false, errorCount: errors.length, warningCount: warnings.length },
  };
}

export function toChangeValidation(report: ValidationReport, options: ChangeValidationOptions = {}): ChangeValidation {
  // Counted, so a problem the change repeats beyond what the baseline had still counts as new.
  // Nothing is demoted when stage 1 failed: the later stages (the impact boundary among them)
  // did not run, so the change cannot be called valid.
  const baselineCounts = new Map<string, number>();
  for (const issue of report.schemaFailed ? [] : (options.baseline?.errors ?? [])) {
    const key = sameProblemKey(issue);
    baselineCounts.set(key, (baselineCounts.get(key) ?? 0) + 1);
  }
  const errors = (options.extraErrors ?? []).map((v) => fromViolation(v, 'error'));
  const warnings = (options.extraWarnings ?? []).map((v) => fromViolation(v, 'warning'));
  const preExisting: ChangeValidationIssue[] = [];
  for (const issue of report.errors) {
    const key = sameProblemKey(issue);
    const left = baselineCounts.get(key) ?? 0;
    if (left > 0) {
      baselineCounts.set(key, left - 1);
      preExisting.push({ ...fromIssue(issue, options.keyOfPath), severity: 'warning', preExisting: true });
    } else {
      errors.push(fromIssue(issue, options.keyOfPath));
    }
  }
  warnings.push(...report.warnings.map((issue) => fromIssue(issue, options.keyOfPath)), ...preExisting);
  return finish(report.schemaFailed, errors, warnings);
}

/** The result when the change set itself broke the contract, so no package report exists (stage 1 failed). */
export function rejectedChangeSet(errors: readonly ContractViolation[], warnings: readonly ContractViolation[] = []): ChangeValidation {
  return finish(
    true,
    errors.map((v) => fromViolation(v, 'error')),
    warnings.map((v) => fromViolation(v, 'warning')),
  );
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** One line for event summaries: "valid", "valid, 2 warnings", "3 errors, 1 warning". */
export function summarizeValidation(v: ChangeValidation): string {
  const head = v.valid ? 'valid' : plural(v.errors.length, 'error');
  return v.warnings.length === 0 ? head : `${head}, ${plural(v.warnings.length, 'warning')}`;
}
