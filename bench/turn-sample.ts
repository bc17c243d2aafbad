/**
 * One turn of bench/turn.ts on any side (ours, the floors, the Node peer): sent, timed at the
 * sender's and a viewer's sockets, the model's own time taken out, then checked to have played the
 * script. Every wait is bounded.
 */
import type { ModelClock } from './model-clock.ts';
import type { Client } from './session-clients.ts';
import type { EventTemplate } from './session-peer.ts';

/** The script: this many iterations of one cheap read tool call, then the final JSON answer. */
export const TOOL_ITERATIONS = 6;
export const REQUESTS = TOOL_ITERATIONS + 1;
/** One turn, POST to turn.finished; far above any plausible figure. */
export const SAMPLE_TIMEOUT_MS = 20_000;

export interface TurnSample {
  /** POST sent → its 202 (headers). */
  answered: number;
  /** POST sent → turn.accepted at the viewer's socket. */
  accepted: number;
  /** POST sent → the first llm.requested at the viewer's socket. */
  firstRequest: number;
  /** The 202 → turn.accepted at the viewer (negative when the event came first). */
  answeredToAccepted: number;
  /** POST sent → turn.finished at the sender's socket. */
  total: number;
  /** The model's time inside the turn (the scripted server's side). */
  model: number;
  /** The sum of the turn's llm.completed durationMs: the model calls as the loop saw them (whole ms). */
  reportedModel: number;
  /** (total − model) / REQUESTS. */
  perIteration: number;
  /** (the sender's first llm.requested → turn.finished − model) / REQUESTS: the loop without accepting and the prompt. */
  loopPerIteration: number;
}

export interface Sockets {
  sender: Client;
  viewer: Client;
}

const END_EVENT = /"type":"turn\.(finished|failed|stopped|paused)"/;
const isLiveEvents = (text: string) => text.startsWith('{"type":"events"') && text.includes('"replay":false');
/** A session event as a frame carries it. */
type FrameEvent = EventTemplate & { type: string };
export const eventsOf = (frames: readonly string[]) => frames.flatMap((f) => (JSON.parse(f) as { events: FrameEvent[] }).events);

/** Sends one message and times the turn at both sockets; checks that it ran the script, after the timing. */
export async function turnSample(sockets: Sockets, mark: string, send: (content: string) => Promise<number>, clock: ModelClock): Promise<{ sample: TurnSample; frames: string[] }> {
  const { sender, viewer } = sockets;
  let acceptedAt: number | undefined;
  const atViewer = viewer.waitText(
    (text) => {
      if (acceptedAt !== undefined) return text.includes('"type":"llm.requested"');
      if (text.includes('"type":"turn.accepted"') && text.includes(mark)) acceptedAt = performance.now();
      return false;
    },
    `turn.accepted, then llm.requested for ${mark}`,
    SAMPLE_TIMEOUT_MS,
  );
  const frames: string[] = [];
  let firstRequestAt: number | undefined;
  let mine = false;
  const atSender = sender.waitText(
    (text) => {
      if (!isLiveEvents(text)) return false;
      mine ||= text.includes('"type":"turn.accepted"') && text.includes(mark);
      if (!mine) return false;
      frames.push(text);
      if (firstRequestAt === undefined && text.includes('"type":"llm.requested"')) firstRequestAt = performance.now();
      return END_EVENT.test(text);
    },
    `the end of the turn ${mark}`,
    SAMPLE_TIMEOUT_MS,
  );
  const start = performance.now();
  const [answeredAt, viewerLlm, end] = await Promise.all([send(`Read the step again (${mark}).`), atViewer, atSender]);
  const model = clock.between(start, end.at);
  const events = eventsOf(frames);
  const sample: TurnSample = {
    answered: answeredAt - start,
    accepted: acceptedAt! - start,
    firstRequest: viewerLlm.at - start,
    answeredToAccepted: acceptedAt! - answeredAt,
    total: end.at - start,
    model: model.ms,
    reportedModel: events.filter((e) => e.type === 'llm.completed').reduce((sum, e) => sum + Number(e.payload['durationMs']), 0),
    perIteration: (end.at - start - model.ms) / REQUESTS,
    loopPerIteration: (end.at - firstRequestAt! - model.ms) / REQUESTS,
  };
  const count = (type: string, ok?: boolean) => events.filter((e) => e.type === type && (ok === undefined || e.payload['ok'] === ok)).length;
  if (!end.text.includes('"type":"turn.finished"')) throw new Error(`the turn ${mark} did not finish: ${end.text.slice(0, 600)}`);
  if (count('llm.requested') !== REQUESTS || count('tool.finished', true) !== TOOL_ITERATIONS || model.count !== REQUESTS) {
    throw new Error(
      `the turn ${mark} did not play the script (${REQUESTS} requests, ${TOOL_ITERATIONS} successful tools): ` +
        `${count('llm.requested')} llm.requested, ${count('tool.finished', true)} tool.finished ok, ${model.count} requests at the model server; ` +
        `events: ${events.map((e) => e.type).join(', ')}; first failed tool: ${JSON.stringify(events.find((e) => e.type === 'tool.finished' && e.payload['ok'] !== true)?.payload ?? null)}`,
    );
  }
  return { sample, frames };
}

/** POSTs and resolves with the time its answer's headers came; anything but 202 is a failure. */
export async function postMessage(url: string, headers: Record<string, string>, content: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ content }),
    signal: AbortSignal.timeout(SAMPLE_TIMEOUT_MS),
  });
  const at = performance.now();
  const text = await res.text();
  if (res.status !== 202) throw new Error(`POST ${url} answered ${res.status}, expected 202: ${text.slice(0, 500)}`);
  return at;
}
