// The demo model on assets: edit a template (tidy headings, add a review checklist) in the format
// of its extension, shorten it, or create a new review-checklist asset in an allowed text format.

import type { Lang } from './conversation.ts';
import { jsonText } from './json-text.ts';
import { appendSection, shorterMarkdown, tidyMarkdown } from './markdown.ts';
import { draftKey, record, stringList, uniquePath, type Edit, type Situation } from './situation.ts';
import { wording } from './wording.ts';

export const NEW_ASSET_PATH = 'assets/notes/review-checklist.md';
const NOTES_KEY = 'reviewNotes';

function extensionOf(path: string): string {
  return /\.[A-Za-z]+$/u.exec(path)?.[0].toLowerCase() ?? '';
}

const plainItems = (items: readonly string[]) => items.map((i) => i.replace(/^(?:[-*]|\d+\.)\s+(?:\[ \]\s+)?/u, ''));

/** The asset with the review checklist added (and Markdown headings tidied); null when it is already there. */
export function editAsset(path: string, content: string, lang: Lang): string | null {
  const w = wording(lang);
  const items = plainItems(w.reviewChecklist);
  switch (extensionOf(path)) {
    case '.md': {
      if (content.includes(`## ${w.reviewChecklistTitle}`)) return null;
      return appendSection(tidyMarkdown(content), w.reviewChecklistTitle, w.reviewChecklist);
    }
    case '.json': {
      let data: unknown;
      try {
        data = JSON.parse(content);
      } catch {
        return null;
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data) || Object.hasOwn(data, NOTES_KEY)) return null;
      return jsonText({ ...data, [NOTES_KEY]: items });
    }
    case '.yaml':
    case '.yml': {
      const header = `# ${w.reviewChecklistTitle}:`;
      if (content.includes(header)) return null;
      return `${content.replace(/\s*$/u, '')}\n\n${header}\n${items.map((i) => `#   - ${i}`).join('\n')}\n`;
    }
    default: {
      const title = w.reviewChecklistTitle.toUpperCase();
      if (content.includes(title)) return null;
      return `${content.replace(/\s*$/u, '')}\n\n${title}\n\n${items.map((i) => `- ${i}`).join('\n')}\n`;
    }
  }
}

/** A shorter asset: Markdown sections cut down; other formats lose what the demo added. Null when nothing gets shorter. */
export function shortenAsset(path: string, content: string, lang: Lang): string | null {
  const w = wording(lang);
  let shorter: string;
  switch (extensionOf(path)) {
    case '.md':
      return shorterMarkdown(content);
    case '.json': {
      try {
        const data = JSON.parse(content) as Record<string, unknown>;
        if (typeof data !== 'object' || data === null || !Object.hasOwn(data, NOTES_KEY)) return null;
        const { [NOTES_KEY]: _notes, ...rest } = data;
        shorter = jsonText(rest);
      } catch {
        return null;
      }
      break;
    }
    case '.yaml':
    case '.yml':
      shorter = content.replace(new RegExp(`\\n*# ${w.reviewChecklistTitle}:\\n(#   - .*\\n?)*`, 'u'), '\n');
      break;
    default:
      shorter = content.split(/\n\s*\n/u).slice(0, 3).join('\n\n').replace(/\s*$/u, '\n');
  }
  return shorter.length < content.length ? shorter : null;
}

/** A new asset at `path` in the format its extension asks for. */
export function newAsset(path: string, lang: Lang): string {
  const w = wording(lang);
  const items = plainItems(w.reviewChecklist);
  switch (extensionOf(path)) {
    case '.json':
      return jsonText({ title: w.newAssetTitle, description: w.newAssetIntro, items });
    case '.yaml':
    case '.yml':
      return [`title: ${JSON.stringify(w.newAssetTitle)}`, `description: ${JSON.stringify(w.newAssetIntro)}`, 'items:', ...items.map((i) => `  - ${JSON.stringify(i)}`), ''].join('\n');
    case '.md':
      return [`# ${w.newAssetTitle}`, '', w.newAssetIntro, '', ...w.reviewChecklist, ''].join('\n');
    default:
      return [w.newAssetTitle, '', w.newAssetIntro, '', ...items.map((i) => `- ${i}`), ''].join('\n');
  }
}

function assetUpsert(path: string, content: string, reason: string) {
  return { op: 'upsert', targetType: 'asset', target: { path }, payload: { content }, reason };
}

function readAsset(s: Situation, path: string): string | { error: string } {
  const read = s.reads.read('builder_asset_read', { path }, 'content');
  return read.ok ? String(read.data['content']) : { error: `I could not read ${path}: ${read.message}` };
}

function shortenEdit(s: Situation, path: string): Edit {
  const content = readAsset(s, path);
  if (typeof content !== 'string') return { kind: 'none', summary: content.error };
  const shorter = shortenAsset(path, content, s.lang);
  if (shorter === null) return { kind: 'none', summary: `I found nothing in ${path} that I can cut without losing its data, so I staged nothing.` };
  return {
    kind: 'stage',
    operations: [assetUpsert(path, shorter, 'A shorter version of the current draft.')],
    objects: [`asset:${path}`],
    summary: `Staged a shorter version of ${path} (${content.length} → ${shorter.length} characters); the path is unchanged.`,
  };
}

export function assetOptimize(s: Situation): Edit {
  const path = s.target.targetId!;
  if (s.intent === 'shorter') return shortenEdit(s, path);
  const content = readAsset(s, path);
  if (typeof content !== 'string') return { kind: 'none', summary: content.error };
  const edited = editAsset(path, content, s.lang);
  if (edited === null) return { kind: 'none', summary: `${path} already has the review checklist (or is not a format I can edit safely), so I staged nothing.` };
  return {
    kind: 'stage',
    operations: [assetUpsert(path, edited, 'A review checklist at the end; headings tidied.')],
    objects: [`asset:${path}`],
    summary: `Staged an edit of ${path}: a "${wording(s.lang).reviewChecklistTitle}" with ${wording(s.lang).reviewChecklist.length} items${extensionOf(path) === '.md' ? ' and tidied headings' : ''}; the path is unchanged.`,
  };
}

export function assetCreate(s: Situation): Edit {
  const own = s.target.targetId;
  if (s.intent === 'shorter') {
    const key = draftKey(s, 'asset', (p) => (own ? p === own : p.startsWith('assets/notes/review-checklist')));
    if (key) return shortenEdit(s, key.slice('asset:'.length));
  }
  const existing = stringList(record(s.context['target_snapshot'])['existingAssetPaths']);
  const path = own ?? uniquePath(NEW_ASSET_PATH, existing);
  const content = newAsset(path, s.lang);
  return {
    kind: 'stage',
    operations: [assetUpsert(path, content, 'A checklist steps can use before a hand-off.')],
    objects: [`asset:${path}`],
    summary: `Staged a new asset ${path}: a "${wording(s.lang).newAssetTitle}" with ${wording(s.lang).reviewChecklist.length} items.`,
  };
}
