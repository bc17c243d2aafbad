/**
 * The WARNINGS.md an export writes beside the files, and how an import knows it as the product's
 * own report (stale in any other export) rather than a file the author wrote. Kept apart from
 * export.ts so the import (and the bench, which runs it under Node) needs no database types.
 */
import type { ValidationIssue } from '../../shared/bmad/index.ts';

export type ExportLayout = 'bmad' | 'bmad-method';

export const WARNINGS_FILE = 'WARNINGS.md';

/** The first line of every WARNINGS.md an export writes: how an import knows the file as ours, not the author's. */
const WARNINGS_HEADER = /^# Export warnings \((?:\.bmad|BMAD-METHOD) layout\)\n\n\d+ warning\(s\)\.\n/u;

/** Whether `text` is a WARNINGS.md an export of this product wrote (a report about one export, stale in any other). */
export function isExportWarnings(text: string): boolean {
  return WARNINGS_HEADER.test(text);
}

/** The warnings as a Markdown file a person reads beside the exported files. */
export function warningsMarkdown(warnings: readonly ValidationIssue[], layout: ExportLayout): string {
  const lines = [`# Export warnings (${layout === 'bmad' ? '.bmad' : 'BMAD-METHOD'} layout)`, '', `${warnings.length} warning(s).`, ''];
  for (const w of warnings) lines.push(`- **${w.code}** \`${w.filePath}\`: ${w.message}${w.hint ? ` (${w.hint})` : ''}`);
  return `${lines.join('\n')}\n`;
}
