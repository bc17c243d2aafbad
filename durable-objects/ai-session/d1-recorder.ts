/**
 * The session object's D1 binding with a switchable record of the SQL it sends: off in use (one
 * null check per statement), switched on by tests that prove a hot path sends no query at all
 * (issue 19: a tool iteration with nothing changed reads nothing from D1).
 */

export interface D1Recorder {
  /** The statements sent since `start()`, as SQL text (never their parameters); null while off. */
  log: string[] | null;
}

/** `d1` as drizzle uses it (prepare, batch, exec), noting each statement's SQL while `recorder.log` is set. */
export function recordingD1(d1: D1Database, recorder: D1Recorder): D1Database {
  const note = (query: string) => recorder.log?.push(query);
  const wrapped: Pick<D1Database, 'prepare' | 'batch' | 'exec' | 'dump' | 'withSession'> = {
    prepare: (query) => {
      note(query);
      return d1.prepare(query);
    },
    batch: (statements) => d1.batch(statements),
    exec: (query) => {
      note(query);
      return d1.exec(query);
    },
    dump: () => d1.dump(),
    withSession: (constraint) => d1.withSession(constraint),
  };
  return wrapped as D1Database;
}
