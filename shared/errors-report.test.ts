/** The error-reporting helper: what it keeps (names, SQL text, database reasons) and what it cuts. */
import { DrizzleQueryError } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { describeError, isUniqueViolation, redactMessage } from './errors-report.ts';

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
