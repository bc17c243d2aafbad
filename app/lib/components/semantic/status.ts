/** How each diff status reads: the marker and word that go with its colour (colour is never the only cue). */
import type { PartStatus } from '../../../../shared/ai/semantic-diff/index.ts';
import { t } from '../../i18n/i18n.svelte.ts';

/** `word` is a getter, so it reads in the current language wherever a component shows it. */
function mark(marker: string, status: PartStatus): { marker: string; readonly word: string } {
  return {
    marker,
    get word() {
      return t(`semanticDiff.status.${status}`);
    },
  };
}

export const STATUS_MARK: Record<PartStatus, { marker: string; readonly word: string }> = {
  added: mark('+', 'added'),
  removed: mark('−', 'removed'),
  changed: mark('~', 'changed'),
  unchanged: mark('', 'unchanged'),
};

/** Stroke, dash and opacity of an edge by status: added green, removed ghosted red and dashed, changed amber. */
export const EDGE_STYLE: Record<PartStatus, string> = {
  added: 'stroke: #1a7f37; stroke-width: 2.5;',
  removed: 'stroke: #cf222e; stroke-width: 2; stroke-dasharray: 6 4; opacity: 0.55;',
  changed: 'stroke: #b45309; stroke-width: 2.5;',
  unchanged: 'stroke: #8b93a7; stroke-width: 1.5;',
};

export const EDGE_COLOUR: Record<PartStatus, string> = { added: '#1a7f37', removed: '#cf222e', changed: '#b45309', unchanged: '#8b93a7' };
