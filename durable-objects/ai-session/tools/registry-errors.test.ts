/**
 * A tool result goes to a third-party model: when a tool fails with an unexpected error (here a
 * failed query, as drizzle throws it, parameters included) the model gets a code and a plain
 * message, and the log gets a redacted report.
 */
import { DrizzleQueryError } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runTool } from './registry.ts';
import type { SessionCore } from '../session.ts';

const EMAIL = 'canary-tool@example.test';
const KEY_CIPHERTEXT = 'q1w2e3r4t5y6u7i8o9p0AaSsDdFfGgHhJjKkLl==';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('tool results of unexpected failures', () => {
  it('give the model AI_TOOL_EXECUTION_ERROR with a plain message, never the query, its parameters or the cause', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(' '));
    });
    const failure = new DrizzleQueryError(
      'update "user_llm_profiles" set "api_key_ciphertext" = ? where "email" = ?',
      [KEY_CIPHERTEXT, EMAIL],
      new Error('D1_ERROR: database is locked: SQLITE_BUSY'),
    );
    // Only the two members runTool touches for this tool; discarding is where the failure happens.
    const core = {
      meta: { sessionId: 'as_tool' },
      discard: async () => {
        throw failure;
      },
    } as unknown as SessionCore;
    const result = await runTool(core, { actor: { userId: 'usr_1', name: 'U', role: 'owner' }, source: 'ai' }, 'builder.change.discard', { sessionId: 'as_tool' });
    expect(result.ok).toBe(false);
    expect(result.ok ? null : result.error.code).toBe('AI_TOOL_EXECUTION_ERROR');
    const sent = JSON.stringify(result);
    for (const leak of [EMAIL, KEY_CIPHERTEXT, 'Failed query', 'user_llm_profiles', 'SQLITE_BUSY', 'D1_ERROR']) expect(sent).not.toContain(leak);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('SQLITE_BUSY');
    expect(logged[0]).not.toContain(EMAIL);
    expect(logged[0]).not.toContain(KEY_CIPHERTEXT);
  });
});
