// Starts the scripted server as the local demo model: `node test/support/scripted-openai/cli.ts --port 8788`.
// Prints one line ending in the base URL; `npm start` spawns it and reads that line.

import { parseArgs } from 'node:util';
import { demo } from './scenarios.ts';
import { startScriptedOpenAI } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8788' },
    host: { type: 'string', default: '127.0.0.1' },
    'chunk-delay-ms': { type: 'string', default: '25' },
  },
});

const port = Number(values.port);
const chunkDelayMs = Number(values['chunk-delay-ms']);
if (!Number.isInteger(port) || port < 0 || port > 65_535 || !Number.isFinite(chunkDelayMs) || chunkDelayMs < 0) {
  console.error('Usage: node test/support/scripted-openai/cli.ts [--port 8788] [--host 127.0.0.1] [--chunk-delay-ms 25]');
  process.exit(2);
}

const server = await startScriptedOpenAI({ port, host: values.host, scenario: demo, chunkDelayMs });
console.log(`Scripted demo model listening at ${server.url}`);

const stop = () => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
