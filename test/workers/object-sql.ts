/**
 * Records, inside a session object's isolate (from `runInDurableObject`), every SQL statement its
 * storage runs, whitespace folded; the tests that count an object's storage work share it. The
 * returned function puts the storage's own `exec` back.
 */
export function recordSql(sql: SqlStorage, onStatement: (statement: string) => void): () => void {
  const exec = sql.exec;
  sql.exec = function (this: SqlStorage, query: string, ...bindings: SqlStorageValue[]) {
    onStatement(query.replace(/\s+/g, ' ').trim());
    return exec.call(this, query, ...bindings);
  } as SqlStorage['exec'];
  return () => {
    sql.exec = exec;
  };
}
