/**
 * Undo and redo for the canvas: a stack of saved GraphChanges. Undoing saves the inverse change
 * as a new revision (history only ever moves forward on the server); a change made elsewhere in
 * between (the Graph JSON tab, another person) makes the older entries stale, so they are dropped
 * rather than undone over someone's edit.
 */
import { invertChange, type GraphChange } from './graph-change.ts';
import type { SaveOutcome } from './save-tracker.svelte.ts';

/** Enough for a working session; the oldest entries fall off. */
const LIMIT = 100;

export class GraphHistory {
  #undo = $state.raw<GraphChange[]>([]);
  #redo = $state.raw<GraphChange[]>([]);

  get canUndo(): boolean {
    return this.#undo.length > 0;
  }
  get canRedo(): boolean {
    return this.#redo.length > 0;
  }
  get undoLabel(): string | undefined {
    return this.#undo.at(-1)?.label;
  }
  get redoLabel(): string | undefined {
    return this.#redo.at(-1)?.label;
  }

  /** A change that was just saved; a new change ends the redo branch. */
  record(change: GraphChange): void {
    this.#undo = [...this.#undo, change].slice(-LIMIT);
    this.#redo = [];
  }

  /**
   * Whether the entries no longer apply to `graphText` (it was changed outside the canvas); if
   * so they are forgotten, and true is returned.
   */
  stale(graphText: string): boolean {
    const expected = this.#undo.at(-1)?.after ?? this.#redo.at(-1)?.before;
    if (expected === undefined || expected === graphText) return false;
    this.#undo = [];
    this.#redo = [];
    return true;
  }

  async undo(save: (change: GraphChange) => Promise<SaveOutcome>): Promise<SaveOutcome | undefined> {
    const change = this.#undo.at(-1);
    if (!change) return undefined;
    const outcome = await save(invertChange(change));
    if (outcome.type === 'saved') {
      this.#undo = this.#undo.slice(0, -1);
      this.#redo = [...this.#redo, change];
    }
    return outcome;
  }

  async redo(save: (change: GraphChange) => Promise<SaveOutcome>): Promise<SaveOutcome | undefined> {
    const change = this.#redo.at(-1);
    if (!change) return undefined;
    const outcome = await save(change);
    if (outcome.type === 'saved') {
      this.#redo = this.#redo.slice(0, -1);
      this.#undo = [...this.#undo, change];
    }
    return outcome;
  }
}
