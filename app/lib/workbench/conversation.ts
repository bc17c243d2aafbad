/**
 * The conversation pane's items: the stored, summary-only messages of `GET …/sessions/:sid`
 * merged with the turns folded from the live events (turn-log.ts), so a turn shows its message,
 * its tool lines and its ending whether or not the stored view has caught up with the socket.
 */
import type { TurnActivity } from './turn-log.ts';
import type { MessageView } from './types.ts';

export type ConversationItem =
  | { kind: 'message'; key: string; role: string; content: string }
  | {
      kind: 'turn';
      key: string;
      turnId: string;
      /** The person's message. */
      content: string;
      requestedBy: string | null;
      /** What the events say about the turn; null when only the stored messages know it. */
      activity: TurnActivity | null;
      /** The turn's stored summary, or the one its `turn.finished` event carried. */
      summary: string | null;
    };

type TurnItem = Extract<ConversationItem, { kind: 'turn' }>;

/** A message sent but whose `turn.accepted` has not arrived yet. */
export interface AwaitingTurn {
  turnId: string;
  content: string;
}

export function buildConversation(messages: readonly MessageView[], turns: readonly TurnActivity[], awaiting: AwaitingTurn | null): ConversationItem[] {
  const activity = new Map(turns.map((t) => [t.turnId, t]));
  const items: ConversationItem[] = [];
  const listed = new Map<string, TurnItem>();

  for (const message of messages) {
    if (message.turnId === null) {
      items.push({ kind: 'message', key: `m${message.id}`, role: message.role, content: message.content });
      continue;
    }
    let item = listed.get(message.turnId);
    if (!item) {
      const known = activity.get(message.turnId) ?? null;
      item = { kind: 'turn', key: message.turnId, turnId: message.turnId, content: '', requestedBy: known?.requestedBy ?? null, activity: known, summary: null };
      listed.set(message.turnId, item);
      items.push(item);
    }
    if (message.role === 'user') item.content = message.content;
    else if (message.role === 'assistant') item.summary = message.content;
  }

  // Turns newer than the stored page (the stored view lags the socket by a request).
  const newestListed = Math.max(0, ...[...listed.values()].map((i) => i.activity?.acceptedSeq ?? 0));
  for (const turn of turns) {
    if (listed.has(turn.turnId) || turn.acceptedSeq <= newestListed) continue;
    const item: TurnItem = { kind: 'turn', key: turn.turnId, turnId: turn.turnId, content: turn.content, requestedBy: turn.requestedBy, activity: turn, summary: null };
    listed.set(turn.turnId, item);
    items.push(item);
  }
  if (awaiting && !listed.has(awaiting.turnId)) {
    items.push({ kind: 'turn', key: awaiting.turnId, turnId: awaiting.turnId, content: awaiting.content, requestedBy: null, activity: null, summary: null });
  }

  for (const item of listed.values()) {
    if (item.content === '' && item.activity) item.content = item.activity.content;
    if (item.summary === null && item.activity?.ending?.type === 'finished') item.summary = item.activity.ending.summary;
  }
  return items;
}
