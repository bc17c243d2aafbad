/**
 * The baseline text each staged file was made against, kept in the object's SQLite by its sha256
 * (the entry's `baseHash`), so a later rebase has the base of its three-way merge even after the
 * stored package moved on. Written when a file is first staged and when a rebase moves a file's
 * baseline; emptied with the overlay.
 */
import type { Baseline, OverlayEntry } from '../../../shared/ai/overlay.ts';
import { sha256Hex } from '../../../shared/hash.ts';
import { contentOf } from './effective-view.ts';
import type { StagedWrite } from './overlay-doc.ts';

export function keepBaseText(sql: SqlStorage, hash: string, text: string): void {
  sql.exec('INSERT OR IGNORE INTO base_texts (hash, content) VALUES (?, ?)', hash, text);
}

/** Keep the baselines of the writes that create an entry (an existing entry keeps its base). */
export function keepBaseTexts(sql: SqlStorage, baseline: Baseline, writes: readonly StagedWrite[], existing: (key: string) => OverlayEntry | undefined): void {
  for (const write of writes) {
    if (write.baseHash === null || existing(write.key)) continue;
    const text = contentOf(baseline.pkg, write.key);
    if (text !== null) keepBaseText(sql, write.baseHash, text);
  }
}

/**
 * The base of a staged entry: null when the file did not exist when it was staged; undefined when
 * the text is not known (staged before bases were kept) — unless the baseline now still hashes to
 * it, in which case the baseline now is that text.
 */
export async function baseTextOf(sql: SqlStorage, entry: OverlayEntry, current: string | null): Promise<string | null | undefined> {
  if (entry.baseHash === null) return null;
  const row = sql.exec<{ content: string }>('SELECT content FROM base_texts WHERE hash = ?', entry.baseHash).toArray()[0];
  if (row) return row.content;
  if (current !== null && (await sha256Hex(current)) === entry.baseHash) return current;
  return undefined;
}

export function clearBaseTexts(sql: SqlStorage): void {
  sql.exec('DELETE FROM base_texts');
}
