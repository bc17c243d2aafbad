/** The import rules on small graphs: each arrow the architecture forbids is reported, the allowed ones are not. */
import { describe, expect, it } from 'vitest';
import { importViolations } from './import-rules.ts';

describe('importViolations', () => {
  it("reports the session object importing the Worker's edge, and allows its server services", () => {
    const graph = {
      'durable-objects/ai-session/session.ts': ['worker/http/api-error.ts', 'worker/db/client.ts', 'shared/api-error.ts'],
      'durable-objects/ai-session/loop/turn-runner.ts': ['worker/llm/effective-profile.ts'],
      'worker/llm/effective-profile.ts': ['worker/env.ts'],
    };
    expect(importViolations(graph).map((v) => [v.file, v.imports])).toEqual([
      ['durable-objects/ai-session/session.ts', 'worker/http/api-error.ts'],
      ['worker/llm/effective-profile.ts', 'worker/env.ts'],
    ]);
  });

  it('reports shared/ importing the Worker or the session object', () => {
    const graph = { 'shared/ai/outcome.ts': ['worker/http/api-error.ts'], 'shared/ai/session-rpc.ts': ['durable-objects/ai-session/apply/apply.ts', 'shared/errors.ts'] };
    expect(importViolations(graph).map((v) => v.imports)).toEqual(['worker/http/api-error.ts', 'durable-objects/ai-session/apply/apply.ts']);
  });

  it('lets only worker/index.ts and the tests name the session class', () => {
    const graph = {
      'worker/index.ts': ['durable-objects/ai-session/ai-session.ts'],
      'worker/env.ts': ['durable-objects/ai-session/ai-session.ts'],
      'worker/routes/ai-sessions.ts': ['durable-objects/ai-session/ai-session.ts'],
      'test/workers/turns.ts': ['durable-objects/ai-session/ai-session.ts'],
    };
    expect(importViolations(graph).map((v) => v.file)).toEqual(['worker/env.ts', 'worker/routes/ai-sessions.ts']);
  });

  it('reports the app importing server code, and matches a rule file by exact path, not by prefix', () => {
    const graph = { 'app/lib/api.ts': ['worker/app.ts', 'shared/api/index.ts'], 'durable-objects/x.ts': ['worker/app.tsx-like/other.ts', 'worker/index.ts'] };
    expect(importViolations(graph).map((v) => [v.file, v.imports])).toEqual([
      ['app/lib/api.ts', 'worker/app.ts'],
      ['durable-objects/x.ts', 'worker/index.ts'],
    ]);
  });
});
