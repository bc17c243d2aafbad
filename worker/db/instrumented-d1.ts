/**
 * A D1 binding wrapped at the database boundary for dev, bench and tests: it counts round trips
 * (one per statement's first/all/run/raw, per batch(), per exec(), sessions included), can sleep
 * N ms per round trip (the distance from a Worker to its database), and can serve bookmark-less
 * session reads from a lagging replica (local D1 has none). Off unless an env var asks for it:
 * production gets the binding itself.
 */

/** The env vars that turn the wrapper on (wrangler `[vars]`, `.dev.vars`, or the test config). */
export interface D1InstrumentationVars {
  /** `true`: count round trips (readable through d1RoundTrips()). */
  D1_COUNT_ROUND_TRIPS?: string;
  /** Milliseconds slept before each round trip (also counts them). */
  D1_INJECT_LATENCY_MS?: string;
}

/** Bookmarks the lagging replica mints: the primary's write position a session has seen. */
const LAG_BOOKMARK = /^lag:(\d+)$/;

interface Replica {
  /** The primary's write position the replica is frozen at. */
  position: number;
  /** Read results as they were at `position`, by method + SQL + parameters. */
  snapshot: Map<string, unknown>;
}

// One counter per isolate: the Worker, the session objects and the Workers-pool tests share it
// (one workerd isolate for the script), so a test or the bench reads what a request cost.
const state = { roundTrips: 0, writes: 0, replica: null as Replica | null, log: [] as string[] };
/** Enough to see what a hot path asks without keeping a long run's every query. */
const LOG_LIMIT = 100;

/** Round trips counted since the last reset (0 while the wrapper is off). */
export function d1RoundTrips(): number {
  return state.roundTrips;
}

/** The SQL of each round trip since the last reset, never its parameters (a batch: its statements joined by `;`). */
export function d1RoundTripLog(): readonly string[] {
  return state.log;
}

export function resetD1RoundTrips(): void {
  state.roundTrips = 0;
  state.log = [];
}

/**
 * From now on, session reads whose bookmark has not seen the primary's latest writes are answered
 * as the replica saw them now (a result read before the write, replayed). Only the wrapper honours it.
 */
export function startLaggingReplica(): void {
  state.replica = { position: state.writes, snapshot: new Map() };
}

export function stopLaggingReplica(): void {
  state.replica = null;
}

export function instrumentationEnabled(vars: D1InstrumentationVars): boolean {
  return vars.D1_COUNT_ROUND_TRIPS === 'true' || latencyOf(vars) > 0;
}

function latencyOf(vars: D1InstrumentationVars): number {
  const ms = Number(vars.D1_INJECT_LATENCY_MS ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** The binding, wrapped when an instrumentation var is set; the binding itself otherwise. */
export function instrumentD1(db: D1Database, vars: D1InstrumentationVars): D1Database {
  if (!instrumentationEnabled(vars)) return db;
  return new InstrumentedDatabase(db, latencyOf(vars)) as unknown as D1Database;
}

const READ_SQL = /^\s*(select|with|pragma)\b/i;

interface Route {
  /** null: the database without a session (always the primary). */
  session: SessionView | null;
}

interface SessionView {
  seen: number;
}

class Trip {
  constructor(readonly latencyMs: number) {}

  async go<T>(sql: string, run: () => Promise<T>): Promise<T> {
    state.roundTrips++;
    // The statement's SQL text whole (never its parameters), so a test can tell which tables it asks.
    if (state.log.length < LOG_LIMIT) state.log.push(sql);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    return run();
  }
}

/** Run a read or write where the replica model says, keeping the session's position. */
async function routed<T>(trip: Trip, route: Route, sql: string, isRead: boolean, key: string, run: () => Promise<T>): Promise<T> {
  return trip.go(sql, async () => {
    const replica = state.replica;
    const session = route.session;
    if (!isRead) {
      const result = await run();
      state.writes++;
      if (session) session.seen = state.writes;
      return result;
    }
    if (replica && session && session.seen <= replica.position) {
      if (state.writes > replica.position && replica.snapshot.has(key)) return replica.snapshot.get(key) as T;
      const result = await run();
      if (state.writes === replica.position) replica.snapshot.set(key, result);
      return result;
    }
    if (session) session.seen = Math.max(session.seen, state.writes);
    return run();
  });
}

class InstrumentedStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly sql: string,
    readonly params: unknown[],
    readonly trip: Trip,
    readonly route: Route,
  ) {}

  bind(...values: unknown[]): InstrumentedStatement {
    return new InstrumentedStatement(this.inner.bind(...values), this.sql, values, this.trip, this.route);
  }

  #run<T>(method: string, run: () => Promise<T>): Promise<T> {
    return routed(this.trip, this.route, this.sql, READ_SQL.test(this.sql), `${method}\u0000${this.sql}\u0000${JSON.stringify(this.params)}`, run);
  }

  first(column?: string) {
    return this.#run(`first:${column ?? ''}`, () => (column === undefined ? this.inner.first() : this.inner.first(column)));
  }

  all() {
    return this.#run('all', () => this.inner.all());
  }

  run() {
    return this.#run('run', () => this.inner.run());
  }

  raw(options?: { columnNames?: boolean }) {
    return this.#run(`raw:${options?.columnNames ? 1 : 0}`, () =>
      options?.columnNames ? this.inner.raw({ columnNames: true }) : this.inner.raw(),
    );
  }
}

function unwrapStatements(statements: D1PreparedStatement[]): { inner: D1PreparedStatement[]; sql: string; isRead: boolean; key: string } {
  const wrapped = statements as unknown as InstrumentedStatement[];
  return {
    sql: wrapped.map((s) => (s instanceof InstrumentedStatement ? s.sql : '?')).join('; '),
    inner: wrapped.map((s) => (s instanceof InstrumentedStatement ? s.inner : (s as unknown as D1PreparedStatement))),
    isRead: wrapped.every((s) => s instanceof InstrumentedStatement && READ_SQL.test(s.sql)),
    key: `batch\u0000${JSON.stringify(wrapped.map((s) => (s instanceof InstrumentedStatement ? [s.sql, s.params] : null)))}`,
  };
}

class InstrumentedSession {
  readonly #route: Route;

  constructor(
    readonly inner: D1DatabaseSession,
    readonly trip: Trip,
    seen: number,
  ) {
    this.#route = { session: { seen } };
  }

  prepare(sql: string): InstrumentedStatement {
    return new InstrumentedStatement(this.inner.prepare(sql), sql, [], this.trip, this.#route);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const { inner, sql, isRead, key } = unwrapStatements(statements);
    return routed(this.trip, this.#route, sql, isRead, key, () => this.inner.batch<T>(inner));
  }

  /** While the lagging replica runs, its own bookmark (the position seen); the real one otherwise. */
  getBookmark(): string | null {
    return state.replica ? `lag:${this.#route.session!.seen}` : this.inner.getBookmark();
  }
}

class InstrumentedDatabase {
  readonly #trip: Trip;
  readonly #route: Route = { session: null };

  constructor(
    readonly inner: D1Database,
    latencyMs: number,
  ) {
    this.#trip = new Trip(latencyMs);
  }

  prepare(sql: string): InstrumentedStatement {
    return new InstrumentedStatement(this.inner.prepare(sql), sql, [], this.#trip, this.#route);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    const { inner, sql, isRead, key } = unwrapStatements(statements);
    return routed(this.#trip, this.#route, sql, isRead, key, () => this.inner.batch<T>(inner));
  }

  exec(query: string): Promise<D1ExecResult> {
    return routed(this.#trip, this.#route, query, false, '', () => this.inner.exec(query));
  }

  dump(): Promise<ArrayBuffer> {
    return this.inner.dump();
  }

  withSession(constraintOrBookmark?: string): InstrumentedSession {
    const lag = constraintOrBookmark ? LAG_BOOKMARK.exec(constraintOrBookmark) : null;
    // Our own bookmarks mean nothing to D1: the session starts unconstrained there.
    const inner = this.inner.withSession(lag ? 'first-unconstrained' : constraintOrBookmark);
    const seen = lag ? Number(lag[1]) : constraintOrBookmark === 'first-primary' ? state.writes : 0;
    return new InstrumentedSession(inner, this.#trip, seen);
  }
}
