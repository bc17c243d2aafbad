import { describe, expect, it } from 'vitest';
import { buildConversation } from './conversation.ts';
import { accepted, event, finished } from './events.fixture.ts';
import { EMPTY_LOG, foldEvents } from './turn-log.ts';
import type { MessageView } from './types.ts';

let nextId = 1;
const message = (role: string, content: string, turnId: string | null): MessageView => ({
  id: nextId++,
  role,
  content,
  turnId,
  createdAt: '2026-01-01T00:00:00.000Z',
});

const turnsOf = (...events: Parameters<typeof foldEvents>[1]) => foldEvents(EMPTY_LOG, events).turns;
const shape = (items: ReturnType<typeof buildConversation>) =>
  items.map((i) => (i.kind === 'message' ? ['message', i.role, i.content] : ['turn', i.turnId, i.content, i.summary, i.activity === null ? 'no events' : 'events']));

describe('buildConversation', () => {
  it('groups the stored messages of a turn into one item: the person’s message and the summary', () => {
    const items = buildConversation([message('user', 'Tighten step one', 't1'), message('assistant', 'Tightened.', 't1')], [], null);
    expect(shape(items)).toEqual([['turn', 't1', 'Tighten step one', 'Tightened.', 'no events']]);
  });

  it('keeps messages of no turn as plain messages, in order', () => {
    const items = buildConversation([message('system', 'Session started.', null), message('user', 'Hi', 't1')], [], null);
    expect(shape(items)).toEqual([
      ['message', 'system', 'Session started.'],
      ['turn', 't1', 'Hi', null, 'no events'],
    ]);
  });

  it('joins a stored turn with its live activity, and takes who asked from the events', () => {
    const turns = turnsOf(accepted(1, 'Tighten step one'), event(2, 'assistant.delta', { iteration: 1, text: 'Working' }));
    const [item] = buildConversation([message('user', 'Tighten step one', 't1')], turns, null);
    expect(item).toMatchObject({ kind: 'turn', turnId: 't1', requestedBy: 'Olive Owner', summary: null });
    expect(item?.kind === 'turn' ? item.activity?.text : undefined).toBe('Working');
  });

  it('shows turns the stored view has not caught up with yet, after the stored ones', () => {
    const turns = turnsOf(accepted(1, 'First', 't1'), finished(2, 'One.', 't1'), accepted(3, 'Second', 't2'));
    const items = buildConversation([message('user', 'First', 't1')], turns, null);
    expect(shape(items)).toEqual([
      ['turn', 't1', 'First', 'One.', 'events'],
      ['turn', 't2', 'Second', null, 'events'],
    ]);
  });

  it('does not repeat an older turn the stored page left out (it is on an earlier page)', () => {
    const turns = turnsOf(accepted(1, 'Old', 't0'), accepted(2, 'Listed', 't1'));
    const items = buildConversation([message('user', 'Listed', 't1')], turns, null);
    expect(shape(items)).toEqual([['turn', 't1', 'Listed', null, 'events']]);
  });

  it('shows a sent message before its turn.accepted arrives, once', () => {
    const awaiting = { turnId: 't9', content: 'Add a review step' };
    expect(shape(buildConversation([], [], awaiting))).toEqual([['turn', 't9', 'Add a review step', null, 'no events']]);
    // Once the events know the turn, the awaiting copy is not added again.
    const items = buildConversation([], turnsOf(accepted(1, 'Add a review step', 't9')), awaiting);
    expect(shape(items)).toEqual([['turn', 't9', 'Add a review step', null, 'events']]);
  });

  it('prefers the stored summary, and falls back to the finished event’s', () => {
    const turns = turnsOf(accepted(1, 'Q', 't1'), finished(2, 'From the event.', 't1'));
    const stored = buildConversation([message('user', 'Q', 't1'), message('assistant', 'From storage.', 't1')], turns, null);
    expect(stored[0]).toMatchObject({ summary: 'From storage.' });
    const live = buildConversation([message('user', 'Q', 't1')], turns, null);
    expect(live[0]).toMatchObject({ summary: 'From the event.' });
  });
});
