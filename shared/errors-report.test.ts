/** The error-reporting helper: what it keeps (names, SQL text, database reasons) and what it cuts. */
import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { describeError, isConstraintViolation, isUniqueViolation, logError, redactMessage } from './errors-report.ts';

const HASH = 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC8Is0Ra6J4bNn2o=';
const SALT = 'AAECAwQFBgcICQoLDA0ODw==';

function failedInsert(reason: string) {
  return new DrizzleQueryError(
    'insert into "users" ("id", "email", "password_hash", "password_salt") values (?, ?, ?, ?)',
    ['usr_1', 'ada@example.test', HASH, SALT],
    new Error(`D1_ERROR: ${reason}: SQLITE_CONSTRAINT`, { cause: new Error(reason) }),
  );
}

describe('describeError', () => {
  it('keeps the name, the SQL text and every cause, and drops the parameters', () => {
    const report = describeError(failedInsert('UNIQUE constraint failed: users.email'));
    expect(report.name).toBe('Error');
    expect(report.message).toContain('insert into "users"');
    expect(report.message).toContain('UNIQUE constraint failed: users.email');
    const text = JSON.stringify(report);
    for (const leak of ['ada@example.test', HASH, SALT, 'params']) expect(text).not.toContain(leak);
  });

  it('cuts quoted values, emails and long opaque runs from any message', () => {
    expect(redactMessage("no row for 'ada@example.test' with key sk-live-0123456789abcdefghij")).toBe("no row for '…' with key …");
    expect(redactMessage('mail bob@example.test failed')).toBe('mail …@… failed');
    expect(redactMessage('x'.repeat(1000)).length).toBeLessThanOrEqual(301);
  });

  it('reports a code carried by the error or a cause, and anything thrown that is not an Error', () => {
    expect(describeError(Object.assign(new Error('boom'), { code: 'ECONNRESET' })).code).toBe('ECONNRESET');
    expect(describeError('a string with ada@example.test')).toEqual({ name: 'string', message: 'thrown string' });
  });
});

describe('isUniqueViolation', () => {
  it('finds the violation in a cause, optionally on one column', () => {
    const error = failedInsert('UNIQUE constraint failed: users.email');
    expect(isUniqueViolation(error)).toBe(true);
    expect(isUniqueViolation(error, 'users.email')).toBe(true);
    expect(isUniqueViolation(error, 'users.id')).toBe(false);
    const composite = new Error('wrapped', { cause: new Error('UNIQUE constraint failed: project_members.project_id, project_members.user_id') });
    expect(isUniqueViolation(composite, 'project_members.user_id')).toBe(true);
  });

  it('is false for other failures', () => {
    expect(isUniqueViolation(failedInsert('NOT NULL constraint failed: users.name'))).toBe(false);
    expect(isUniqueViolation('UNIQUE constraint failed: users.email')).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});

describe('isConstraintViolation', () => {
  it("finds a NOT NULL failure on one column in a cause, as the store's revision guard needs", () => {
    const guard = new Error('Failed query: insert into revision_history', {
      cause: new Error('D1_ERROR: NOT NULL constraint failed: revision_history.new_revision: SQLITE_CONSTRAINT'),
    });
    expect(isConstraintViolation(guard, 'NOT NULL', 'revision_history.new_revision')).toBe(true);
    expect(isConstraintViolation(guard, 'NOT NULL', 'revision_history.old_revision')).toBe(false);
    expect(isConstraintViolation(guard, 'UNIQUE')).toBe(false);
    expect(isConstraintViolation('NOT NULL constraint failed: revision_history.new_revision', 'NOT NULL')).toBe(false);
  });
});

describe('logError', () => {
  it('writes one line through the caller\'s redaction when given one', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      logError('probe', new Error('bad key k.e.y'), { userId: 'usr_1' }, { redact: (line) => line.replaceAll('k.e.y', '***') });
      expect(spy).toHaveBeenCalledTimes(1);
      const [where, line] = spy.mock.calls[0]!;
      expect(where).toBe('probe');
      expect(line).toContain('bad key ***');
      expect(line).not.toContain('k.e.y');
      expect(JSON.parse(line as string)).toMatchObject({ userId: 'usr_1', error: { name: 'Error' } });
    } finally {
      spy.mockRestore();
    }
  });
});
