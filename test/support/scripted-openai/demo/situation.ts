// What an edit strategy of the demo model works from: the session target (from builder.context.get),
// the intent and language of the message, and reads that either answer from this turn's tool results
// or stop the strategy with the tool call it still needs (NeedCall). Replaying a strategy over the
// same results always asks for the same calls, so the demo stays deterministic.

import type { Intent, Lang, ToolResult } from './conversation.ts';

export type TargetType = 'workflow' | 'step' | 'agent' | 'asset';
export type Mode = 'create' | 'optimize';

export interface Target {
  targetType: TargetType;
  mode: Mode;
  workflowId: string | null;
  targetId: string | null;
}

/** The biggest window a read tool returns (durable-objects/ai-session/tools/window.ts MAX_WINDOW_CHARS). */
const READ_LIMIT = 32_000;

/** Thrown by `read` when the strategy needs a tool call that has not run in this turn yet. */
export class NeedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  constructor(name: string, args: Record<string, unknown>) {
    this.name = name;
    this.args = args;
  }
}

export type ReadOutcome = { ok: true; data: Record<string, unknown> } | { ok: false; code: string; message: string };

const sameArgs = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => {
  const strip = ({ offset: _o, limit: _l, ...rest }: Record<string, unknown>) => JSON.stringify(Object.entries(rest).sort(([x], [y]) => (x < y ? -1 : 1)));
  return strip(a) === strip(b);
};

export class Reads {
  readonly #results: readonly ToolResult[];

  constructor(results: readonly ToolResult[]) {
    this.#results = results;
  }

  /**
   * The data of `name(args)`. A windowed text (`textField`) is read on with offset until whole and
   * handed back joined. Throws NeedCall for the next call when the result is not there yet.
   */
  read(name: string, args: Record<string, unknown>, textField?: string): ReadOutcome {
    const found = this.#results.filter((r) => r.name === name && r.envelope !== undefined && sameArgs(r.args, args));
    const first = found.find((r) => (r.args['offset'] ?? 0) === 0);
    if (!first?.envelope) throw new NeedCall(name, args);
    if (!first.envelope.ok) return { ok: false, code: first.envelope.error?.code ?? 'UNKNOWN', message: first.envelope.error?.message ?? 'The tool failed.' };
    const data = { ...(first.envelope.data as Record<string, unknown>) };
    if (!textField || typeof data[textField] !== 'string') return { ok: true, data };
    let text = data[textField] as string;
    let next = data['nextOffset'];
    while (typeof next === 'number') {
      const offset = next;
      const piece = found.find((r) => r.args['offset'] === offset)?.envelope;
      if (!piece) throw new NeedCall(name, { ...args, offset, limit: READ_LIMIT });
      if (!piece.ok) return { ok: false, code: piece.error?.code ?? 'UNKNOWN', message: piece.error?.message ?? 'The tool failed.' };
      const pieceData = piece.data as Record<string, unknown>;
      text += String(pieceData[textField] ?? '');
      next = pieceData['nextOffset'];
    }
    return { ok: true, data: { ...data, [textField]: text, truncated: false } };
  }
}

export interface Situation {
  target: Target;
  /** The data of builder.context.get: session_meta, target_snapshot, dependency_digest, revision_info… */
  context: Record<string, unknown>;
  intent: Intent;
  lang: Lang;
  /** Object keys already staged in this session (revision_info.stagedKeys): the current draft. */
  stagedKeys: readonly string[];
  reads: Reads;
}

/** What a strategy proposes: a change to stage, or nothing (with the reason, told honestly). */
export type Edit = { kind: 'stage'; operations: unknown[]; objects: string[]; summary: string } | { kind: 'none'; summary: string };

export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** `base`, or `base-2`, `base-3`, … : the first that is not taken. */
export function uniqueId(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A path with `-2`, `-3`, … before its extension until it is not taken. */
export function uniquePath(path: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(path)) return path;
  const dot = path.lastIndexOf('.');
  const [stem, ext] = dot > path.lastIndexOf('/') ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
  for (let n = 2; ; n++) if (!used.has(`${stem}-${n}${ext}`)) return `${stem}-${n}${ext}`;
}

/** The staged key of `kind` a follow-up works on: the target's own, else the last one staged. */
export function draftKey(situation: Situation, kind: string, matches: (id: string) => boolean = () => true): string | undefined {
  const prefix = `${kind}:`;
  const keys = situation.stagedKeys.filter((k) => k.startsWith(prefix) && matches(k.slice(prefix.length)));
  return keys.at(-1);
}
