// vitest globalSetup of the Workers pool (vitest.workers.config.ts): runs in Node, starts the scripted
// OpenAI-compatible server once for the run and provides its address, which the config passes to the
// Worker as the SCRIPTED_OPENAI_URL binding (workerd cannot start Node servers itself). Its control API is
// on, so tests inside workerd script their own models over HTTP (test/workers/scripted-model.ts). Also
// provides an address where nothing listens, for "unreachable provider" tests.

import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startScriptedOpenAI, type Scenario } from './scripted-openai/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    scriptedOpenAIUrl: string;
    unreachableOpenAIUrl: string;
  }
}

/** The only key model `scripted-needs-key` accepts; test/workers/llm-profile.test.ts uses the same literal. */
export const SCRIPTED_VALID_KEY = 'sk-scripted-valid-0123456789abcdef';

/** Like a real provider: the right key gets an answer, any other a 401 that (carelessly) echoes the key. */
const needsKey: Scenario = ({ headers }) =>
  headers['authorization'] === `Bearer ${SCRIPTED_VALID_KEY}` ? { content: 'pong' } : { fault: 'invalid_api_key', echoKey: true };

/** A port that was free a moment ago; nothing listens there during the run. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scripted = await startScriptedOpenAI({
    port: 0,
    control: true,
    scenarios: {
      'scripted-needs-key': needsKey,
      // A provider that redirects to the metadata address: the Worker must not follow.
      'scripted-redirect': { fault: 'http_error', status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data' } },
    },
  });
  project.provide('scriptedOpenAIUrl', scripted.url);
  project.provide('unreachableOpenAIUrl', `http://127.0.0.1:${await closedPort()}/v1`);
  return () => scripted.close();
}
