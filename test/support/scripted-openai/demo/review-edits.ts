// The demo model on an "address the open comments" turn: it reads the threads quoted in the
// <review-threads> block, adds a "Review notes" line per thread to each commented step or Markdown
// asset (read through the tools, so from the draft), and names the threads it addressed. Agents and
// graph files are left for a person; the summary says so.

import { appendSection } from './markdown.ts';
import { record, type Edit, type Reads } from './situation.ts';

const OPEN = '<review-threads>';
const CLOSE = '</review-threads>';
const NOTES_TITLE = 'Review notes';
const MAX_NOTE_CHARS = 160;

export interface QuotedThread {
  threadId: string;
  objectKey: string;
  lines: string | null;
  comment: string;
}

/** The threads quoted in a request, or null when the request quotes none. */
export function quotedThreads(request: string): QuotedThread[] | null {
  const start = request.indexOf(OPEN);
  const end = request.indexOf(CLOSE, start);
  if (start < 0 || end < 0) return null;
  let data: unknown;
  try {
    data = JSON.parse(request.slice(start + OPEN.length, end));
  } catch {
    return null;
  }
  if (!Array.isArray(data)) return null;
  return data.map(record).flatMap((t) => {
    const comments = Array.isArray(t['comments']) ? t['comments'].map(record) : [];
    const first = comments[0]?.['text'];
    if (typeof t['threadId'] !== 'string' || typeof t['objectKey'] !== 'string') return [];
    return [{ threadId: t['threadId'], objectKey: t['objectKey'], lines: typeof t['lines'] === 'string' ? t['lines'] : null, comment: typeof first === 'string' ? first : '' }];
  });
}

function note(thread: QuotedThread): string {
  const said = thread.comment.replace(/\s+/gu, ' ').trim();
  const short = said.length > MAX_NOTE_CHARS ? `${said.slice(0, MAX_NOTE_CHARS - 1)}…` : said;
  return `- ${thread.lines ? `Lines ${thread.lines}` : 'Whole file'}: reviewed the comment "${short}".`;
}

/** One upsert per commented step or Markdown asset, with its notes appended; the threads it covers. */
export function addressThreads(reads: Reads, threads: readonly QuotedThread[]): { edit: Edit; addressed: string[] } {
  const byKey = new Map<string, QuotedThread[]>();
  for (const t of threads) byKey.set(t.objectKey, [...(byKey.get(t.objectKey) ?? []), t]);
  const operations: unknown[] = [];
  const objects: string[] = [];
  const addressed: string[] = [];
  const skipped: string[] = [];
  for (const [key, list] of byKey) {
    const [kind, rest = ''] = key.split(/:(.*)/su);
    const notes = list.map(note);
    if (kind === 'step') {
      const [workflowId = '', nodeId = ''] = rest.split('/');
      const read = reads.read('builder_step_read', { workflowId, nodeId }, 'markdown');
      if (!read.ok) {
        skipped.push(key);
        continue;
      }
      operations.push({ op: 'upsert', targetType: 'step', target: { workflowId, nodeId }, payload: { stepMarkdown: appendSection(String(read.data['markdown']), NOTES_TITLE, notes) }, reason: 'Answer the review comments.' });
    } else if (kind === 'asset' && rest.endsWith('.md')) {
      const read = reads.read('builder_asset_read', { path: rest }, 'content');
      if (!read.ok) {
        skipped.push(key);
        continue;
      }
      operations.push({ op: 'upsert', targetType: 'asset', target: { path: rest }, payload: { content: appendSection(String(read.data['content']), NOTES_TITLE, notes) }, reason: 'Answer the review comments.' });
    } else {
      skipped.push(key);
      continue;
    }
    objects.push(key);
    addressed.push(...list.map((t) => t.threadId));
  }
  const left = skipped.length > 0 ? ` I left ${skipped.join(', ')} for a person.` : '';
  if (operations.length === 0) return { edit: { kind: 'none', summary: `I could not address these comments myself.${left}` }, addressed: [] };
  const summary = `Staged a "${NOTES_TITLE}" section answering ${addressed.length} review thread${addressed.length === 1 ? '' : 's'} in ${objects.join(', ')}.${left}`;
  return { edit: { kind: 'stage', operations, objects, summary }, addressed };
}
