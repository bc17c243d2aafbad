// A scripted OpenAI-compatible HTTP server (node:http only) for tests and the local demo: real wire
// format, SSE streaming, tool calls, and faults on demand. Scenarios decide each reply from the request;
// with `control: true`, tests script models over HTTP too (control.ts, /_scripted/…; see README.md).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PREFIX, createScriptControl, type PacedReply } from './control.ts';
import { openAIError, playReply, sendJson } from './respond.ts';
import { echo, MODEL_SCENARIOS } from './scenarios.ts';
import { alternationProblem, toolShapeProblem } from './conversation.ts';
import type { ChatMessage, FaultReply, OfferedTool, RecordedRequest, Reply, Scenario, ScenarioRequest, ServerQuirks } from './types.ts';

export interface ScriptedOpenAIOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Scenarios chosen by the request's `model`, added to the built-in `scripted-demo` and `scripted-echo`. */
  scenarios?: Record<string, Scenario | Reply>;
  /** The scenario for every other model; `echo` unless set. */
  scenario?: Scenario | Reply;
  /** Pause between stream chunks, so a demo looks like a model typing. */
  chunkDelayMs?: number;
  /**
   * Serves the data-only control API under /_scripted/ (scripts, per-model reply queues, recordings;
   * control.ts) for tests that cannot pass functions, e.g. from inside workerd. Off: those paths are 404.
   */
  control?: boolean;
}

export interface ScriptedOpenAI {
  /** Base URL for an OpenAI client, ending in /v1. */
  readonly url: string;
  readonly port: number;
  /** Every request received since start or the last reset(), oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** The chat completion requests only. */
  chatRequests(): RecordedRequest[];
  /** `requests` with Authorization and api-key headers redacted, safe to print. */
  redactedRequests(): RecordedRequest[];
  /** Sets the default scenario, or with `model` the scenario for that model name. */
  setScenario(scenario: Scenario | Reply, options?: { model?: string }): void;
  /** Plays `reply` (usually a fault) for the next `times` chat requests, before any scenario is asked. */
  failNext(reply: FaultReply | Reply, times?: number): void;
  /**
   * Forgets recorded requests and queued faults, restarts callIndex and restores the start-up scenarios;
   * also forgets the control API's scripts, queues and recordings.
   */
  reset(): void;
  /** Stops listening and destroys open connections (hanging requests included). */
  close(): Promise<void>;
}

const REDACTED = '***REDACTED***';

export function redactRecordedRequest(request: RecordedRequest): RecordedRequest {
  const headers = { ...request.headers };
  for (const name of ['authorization', 'api-key', 'x-api-key']) {
    const value = headers[name];
    if (value !== undefined) headers[name] = /^bearer\s/i.test(value) ? `Bearer ${REDACTED}` : REDACTED;
  }
  return { ...request, headers };
}

function toScenario(value: Scenario | Reply): Scenario {
  return typeof value === 'function' ? value : () => value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function offeredTools(body: Record<string, unknown>): OfferedTool[] {
  const tools = Array.isArray(body['tools']) ? (body['tools'] as unknown[]) : [];
  return tools.flatMap((tool) => {
    if (!isRecord(tool) || !isRecord(tool['function'])) return [];
    const fn = tool['function'];
    if (typeof fn['name'] !== 'string') return [];
    return [
      {
        name: fn['name'],
        ...(typeof fn['description'] === 'string' ? { description: fn['description'] } : {}),
        ...(isRecord(fn['parameters']) ? { parameters: fn['parameters'] } : {}),
      },
    ];
  });
}

/** The 400 body a real server sends for what the model's quirks say it cannot do, or null. */
function quirkRefusal(quirks: ServerQuirks, body: Record<string, unknown>, model: string, offersTools: boolean): unknown {
  const rejected = (quirks.rejectParams ?? []).find((name) => name in body);
  if (rejected !== undefined) return openAIError(`Unrecognized request argument supplied: ${rejected}`, 'invalid_request_error', null);
  if (offersTools && quirks.noTools === 'ollama') {
    return { error: { message: `registry.ollama.ai/library/${model} does not support tools`, type: 'api_error', param: null, code: null } };
  }
  if (offersTools && quirks.noTools === 'vllm') {
    // vLLM's own error shape (top-level, not under `error`); it defaults tool_choice to "auto" when tools are sent.
    const message = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set';
    return { object: 'error', message, type: 'BadRequestError', param: null, code: 400 };
  }
  return null;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export async function startScriptedOpenAI(options: ScriptedOpenAIOptions = {}): Promise<ScriptedOpenAI> {
  const host = options.host ?? '127.0.0.1';
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  const initialModels = (): Map<string, Scenario> =>
    new Map(
      Object.entries({ ...MODEL_SCENARIOS, ...(options.scenarios ?? {}) }).map(([name, s]) => [name, toScenario(s)]),
    );

  let byModel = initialModels();
  let fallback: Scenario = toScenario(options.scenario ?? echo);
  let requests: RecordedRequest[] = [];
  let queued: Array<{ reply: Reply; remaining: number }> = [];
  let callIndex = 0;
  const control = options.control === true ? createScriptControl() : undefined;

  async function chat(res: ServerResponse, recorded: RecordedRequest, azure: { deployment: string; query: URLSearchParams } | null): Promise<void> {
    const body = recorded.body;
    if (!isRecord(body)) {
      sendJson(res, 400, openAIError('We could not parse the JSON body of your request.', 'invalid_request_error', null));
      return;
    }
    if (azure !== null) {
      // As Azure OpenAI answers: the key in `api-key`, and no api-version is no route at all.
      if (!azure.query.get('api-version')) {
        sendJson(res, 404, { error: { code: '404', message: 'Resource not found' } });
        return;
      }
      if (!recorded.headers['api-key']) {
        const message =
          'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';
        sendJson(res, 401, { error: { code: '401', message } });
        return;
      }
    } else if (!recorded.headers['authorization']) {
      sendJson(
        res,
        401,
        openAIError("You didn't provide an API key. Send it in an Authorization: Bearer header.", 'invalid_request_error', 'missing_api_key'),
      );
      return;
    }
    const model = typeof body['model'] === 'string' && body['model'] !== '' ? body['model'] : (azure?.deployment ?? '');
    const quirks = control?.quirksOf(model) ?? {};
    const request: ScenarioRequest = {
      body,
      messages: Array.isArray(body['messages']) ? (body['messages'] as ChatMessage[]) : [],
      tools: offeredTools(body),
      model,
      // A server that does not stream answers every request with one JSON completion.
      stream: body['stream'] === true && quirks.ignoreStream !== true,
      headers: recorded.headers,
      callIndex: callIndex++,
    };
    const streamOptions = body['stream_options'];
    const includeUsage = request.stream && isRecord(streamOptions) && streamOptions['include_usage'] === true;
    if (control !== undefined) {
      const { headers, receivedAt } = redactRecordedRequest(recorded);
      // 'close' follows the end of the response as well as a client that went away.
      const query = azure === null ? {} : Object.fromEntries(azure.query);
      res.once('close', control.track(model, { body, headers, receivedAt, callIndex: request.callIndex, path: recorded.path, query }));
    }
    const refusal = quirkRefusal(quirks, body, model, request.tools.length > 0);
    if (refusal !== null) {
      sendJson(res, 400, refusal);
      return;
    }
    // Every server checks what OpenAI checks; some chat templates also need alternating roles.
    const shape = toolShapeProblem(request.messages) ?? (quirks.alternatingRoles ? alternationProblem(request.messages) : null);
    if (shape !== null) {
      sendJson(res, 400, openAIError(shape, 'invalid_request_error', 'messages'));
      return;
    }

    // The server-wide failNext() queue first, then the model's control queue and script, then scenarios.
    let step: PacedReply | undefined;
    const next = queued[0];
    if (next !== undefined) {
      step = { reply: next.reply };
      next.remaining -= 1;
      if (next.remaining <= 0) queued.shift();
    } else {
      step = control?.nextStep(model, request.messages);
    }
    if (step === undefined) {
      try {
        step = { reply: await (byModel.get(model) ?? fallback)(request) };
      } catch (error) {
        // A broken scenario is a bug in the test: answer loudly rather than hang.
        const message = error instanceof Error ? error.message : String(error);
        sendJson(res, 500, openAIError(`The scripted scenario failed: ${message}`, 'scenario_error', null));
        return;
      }
    }
    await playReply(res, step.reply, request, { includeUsage, chunkDelayMs: step.chunkDelayMs ?? chunkDelayMs, delayMs: step.delayMs ?? 0 });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const url = new URL(req.url ?? '/', 'http://scripted.invalid');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      // Control requests are not recorded: `requests` stays the traffic a model would see.
      if (control === undefined) {
        const hint = 'The control API is off; start the server with startScriptedOpenAI({ control: true }).';
        sendJson(res, 404, openAIError(`Unknown request URL: ${req.method} ${path}. ${hint}`, 'invalid_request_error', 'unknown_url'));
        return;
      }
      const answer = control.answer(req.method ?? 'GET', path, body);
      sendJson(res, answer.status, answer.body);
      return;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: headersOf(req), body, receivedAt: Date.now() };
    requests.push(recorded);

    if (req.method === 'GET' && path === '/v1/models') {
      const created = 1_700_000_000;
      sendJson(res, 200, {
        object: 'list',
        data: [...byModel.keys()].map((id) => ({ id, object: 'model', created, owned_by: 'scripted-openai' })),
      });
      return;
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      await chat(res, recorded, null);
      return;
    }
    const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path)?.[1];
    if (req.method === 'POST' && deployment !== undefined) {
      await chat(res, recorded, { deployment: decodeURIComponent(deployment), query: url.searchParams });
      return;
    }
    sendJson(res, 404, openAIError(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', 'unknown_url'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[scripted-openai] request failed', error);
      if (!res.headersSent) sendJson(res, 500, openAIError('The scripted server failed.', 'server_error', null));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    get requests() {
      return requests;
    },
    chatRequests: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions'),
    redactedRequests: () => requests.map(redactRecordedRequest),
    setScenario(scenario, setOptions = {}) {
      if (setOptions.model !== undefined) byModel.set(setOptions.model, toScenario(scenario));
      else fallback = toScenario(scenario);
    },
    failNext(reply, times = 1) {
      if (times > 0) queued.push({ reply, remaining: times });
    },
    reset() {
      requests = [];
      queued = [];
      callIndex = 0;
      control?.reset();
      byModel = initialModels();
      fallback = toScenario(options.scenario ?? echo);
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
