/**
 * The loop's first step (turn-loop.ts): compose the turn's prompt once — the context envelope over
 * the effective view, the history, the layers — checkpoint it with the turn, and tell the viewers
 * and the audit what went in. A resumed turn already has its prompt and skips this.
 */
import type { EffectiveLlmProfile } from '../../../worker/llm/effective-profile.ts';
import { buildContextEnvelope } from '../tools/context-envelope.ts';
import { preparePrompt } from '../prompt/prepare.ts';
import { alternating } from '../prompt/history.ts';
import type { AuditBuffer } from './audit-buffer.ts';
import type { TurnDeps } from './loop-context.ts';
import type { TurnRecord } from './turn-store.ts';
import { loadSenderLocale } from './turn-languages.ts';

export async function composePrompt(
  deps: TurnDeps,
  turn: TurnRecord,
  input: { profile: EffectiveLlmProfile; offered: ReadonlySet<string>; toolTokens: number; audit: AuditBuffer },
): Promise<void> {
  const { core } = deps;
  const meta = core.meta!;
  const { ctx, view } = await core.view();
  // The sender's language came with the message; only a turn accepted before a restart reads it again.
  const remembered = core.senderLocales.get(turn.id);
  const senderLocale = remembered !== undefined ? remembered : await loadSenderLocale(deps.db, turn.userId);
  core.senderLocales.delete(turn.id);
  const languages = { contentLanguage: ctx.contentLanguage, senderLocale };
  const envelope = buildContextEnvelope({ view, session: meta, domainProfile: ctx.domainProfile });
  // A failed or stopped turn left its request without an answer: the roles must still alternate.
  const history = alternating(
    core.turns
      .conversation()
      .filter((m) => m.turnId !== turn.id && (m.role === 'user' || m.role === 'assistant'))
      .map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
  );
  const prepared = preparePrompt({
    session: meta,
    envelope,
    domainProfile: ctx.domainProfile,
    pkg: view.pkg,
    history,
    userMessage: turn.content,
    tools: [...input.offered],
    suggestOnly: turn.suggestOnly,
    ...languages,
    contextWindow: input.profile.contextWindow ?? undefined,
    reservedTokens: input.toolTokens,
  });
  core.turns.setPrompt(turn.id, prepared.messages, prepared.summary);
  deps.emit({ type: 'turn.context', actor: { kind: 'system' }, turnId: turn.id, payload: prepared.summary });
  input.audit.add({
    type: 'ai.prompt.composed',
    userId: turn.userId,
    payload: {
      turnId: turn.id,
      layers: prepared.layers.map((l) => l.id),
      persona: { source: prepared.summary.persona.source, confidence: prepared.summary.persona.confidence },
      estimatedTokens: prepared.summary.budget.estimatedTokens,
      trimmed: prepared.summary.budget.trimmed.length,
    },
  });
}
