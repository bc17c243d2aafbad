/**
 * The session Durable Object's SQLite schema and
 * the small typed helpers around `ctx.storage.sql`. Everything the session knows lives here, so
 * an evicted or redeployed object comes back exactly as it was.
 */

const SCHEMA = [
  // Session meta and small state, one JSON value per key.
  `CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  // The sequenced event log; seq is gap-free (assigned as max + 1 inside the same synchronous write).
  `CREATE TABLE IF NOT EXISTS events (
     seq INTEGER PRIMARY KEY, type TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL,
     turn_id TEXT, payload TEXT NOT NULL)`,
  // Yjs updates, each appended before it is broadcast; compaction replaces them with one snapshot row.
  `CREATE TABLE IF NOT EXISTS y_updates (id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL)`,
  // Change-set versions: one per stage or (debounced) co-edit.
  `CREATE TABLE IF NOT EXISTS versions (
     version INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, content_hash TEXT NOT NULL,
     source TEXT NOT NULL, created_by TEXT, change_set TEXT, files TEXT NOT NULL,
     validation TEXT, status TEXT NOT NULL, created_at TEXT NOT NULL)`,
  // Object keys declared in the staged change sets' impact.objects (stage 4 reads them).
  `CREATE TABLE IF NOT EXISTS declared_keys (key TEXT PRIMARY KEY)`,
  // Shared review: threads anchored to an object key and line, their comments, approvals.
  `CREATE TABLE IF NOT EXISTS threads (
     id TEXT PRIMARY KEY, object_key TEXT NOT NULL, line INTEGER, status TEXT NOT NULL,
     created_by TEXT NOT NULL, created_at TEXT NOT NULL, resolved_by TEXT, resolved_at TEXT)`,
  `CREATE TABLE IF NOT EXISTS comments (
     id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, author_id TEXT NOT NULL, author_name TEXT NOT NULL,
     body TEXT NOT NULL, created_at TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS approvals (
     version INTEGER NOT NULL, user_id TEXT NOT NULL, user_name TEXT NOT NULL, content_hash TEXT NOT NULL,
     created_at TEXT NOT NULL, revoked_at TEXT, revoke_reason TEXT, PRIMARY KEY (version, user_id))`,
  // A thread's line range as Yjs relative positions in the file's Y.Text, and the lines it quoted.
  `CREATE TABLE IF NOT EXISTS thread_anchors (
     thread_id TEXT PRIMARY KEY, line_end INTEGER NOT NULL, rel_start BLOB NOT NULL, rel_end BLOB NOT NULL, quote TEXT NOT NULL)`,
  // Threads an AI turn said it addressed ("address the open comments"), with the version that turn made.
  `CREATE TABLE IF NOT EXISTS thread_addressed (thread_id TEXT PRIMARY KEY, version INTEGER NOT NULL, turn_id TEXT NOT NULL, at TEXT NOT NULL)`,
  // "Request changes": open until its author approves, withdraws, or an owner dismisses it.
  `CREATE TABLE IF NOT EXISTS change_requests (
     id TEXT PRIMARY KEY, version INTEGER NOT NULL, user_id TEXT NOT NULL, user_name TEXT NOT NULL, body TEXT NOT NULL,
     created_at TEXT NOT NULL, closed_at TEXT, closed_by TEXT, close_reason TEXT, close_note TEXT)`,
  // People who staged or co-edited the current draft (they cannot approve it); emptied on apply and discard.
  `CREATE TABLE IF NOT EXISTS draft_authors (user_id TEXT PRIMARY KEY)`,
  // The conversation in OpenAI form: user messages, the loop's assistant and tool messages of each
  // turn (extra: {kind, tool_calls, tool_call_id, reasoning_content}) and each turn's final summary.
  `CREATE TABLE IF NOT EXISTS messages (
     id INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL,
     turn_id TEXT, extra TEXT, created_at TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS messages_turn_idx ON messages (turn_id, id)`,
  // One row per AI turn: its checkpoint (status, iteration, repairs, usage, composed prompt prefix).
  `CREATE TABLE IF NOT EXISTS turns (
     id TEXT PRIMARY KEY, status TEXT NOT NULL, user_id TEXT NOT NULL, user_name TEXT NOT NULL,
     user_role TEXT NOT NULL, content TEXT NOT NULL, suggest_only INTEGER NOT NULL,
     iteration INTEGER NOT NULL DEFAULT 0, repairs INTEGER NOT NULL DEFAULT 0,
     format_retries INTEGER NOT NULL DEFAULT 0, resumes INTEGER NOT NULL DEFAULT 0,
     usage TEXT NOT NULL, prefix TEXT, context TEXT, staged_version INTEGER,
     accepted_seq INTEGER NOT NULL, started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     ended_at INTEGER, outcome TEXT)`,
  // Tool runs, exactly once per tool_call_id: 'started' is written before a change tool runs (a read
  // simply runs again after a restart). Keyed by turn and iteration too, because some providers
  // reuse ids like "call_0" in every response.
  `CREATE TABLE IF NOT EXISTS tool_runs (
     turn_id TEXT NOT NULL, iteration INTEGER NOT NULL, tool_call_id TEXT NOT NULL, name TEXT NOT NULL,
     status TEXT NOT NULL, ok INTEGER, code TEXT, result TEXT, duration_ms INTEGER,
     started_at INTEGER NOT NULL, finished_at INTEGER, PRIMARY KEY (turn_id, iteration, tool_call_id))`,
  // What the Worker told the session about each person's role on the project (null: removed), and
  // when (ms): socket frames are checked against it, not against the role read at connect.
  `CREATE TABLE IF NOT EXISTS members (user_id TEXT PRIMARY KEY, role TEXT, at INTEGER NOT NULL)`,
  // The sign-outs the Worker told of (sockets/sign-outs.ts): a login's (login_session = its id), or
  // everywhere (login_session = '', at = when D1 had it). Connects and frames are checked against it.
  `CREATE TABLE IF NOT EXISTS sign_outs (user_id TEXT NOT NULL, login_session TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (user_id, login_session))`,
  // The logins the Worker checked for requests to this session, and when it last told of a change to
  // a person (sockets/known-callers.ts): a known login's message needs no D1 read. (Their AI
  // profiles are kept in memory only: a sealed key is never written here.)
  `CREATE TABLE IF NOT EXISTS known_logins (
     login_session TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, locale TEXT,
     read_at INTEGER NOT NULL, expires_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS caller_changes (user_id TEXT PRIMARY KEY, at INTEGER NOT NULL)`,
  // Each person's budget for the expensive socket frames (sockets/person-budgets.ts), saved at its
  // marks only, so hibernation does not refill it.
  `CREATE TABLE IF NOT EXISTS frame_budgets (user_id TEXT NOT NULL, kind TEXT NOT NULL, tokens REAL NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (user_id, kind))`,
  // Deferred work the alarm runs by name: the debounced re-validation, the release after retention.
  // (The turn watchdog and the audit flush need only the alarm itself: ai-session.ts keeps them in memory.)
  `CREATE TABLE IF NOT EXISTS tasks (name TEXT PRIMARY KEY, due_at INTEGER NOT NULL)`,
  // Audit rows waiting for D1 (loop/audit-outbox.ts): written here first, deleted once D1 has them.
  // `id` is the D1 row's primary key, so a retried flush cannot write a row twice.
  `CREATE TABLE IF NOT EXISTS audit_outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, row TEXT NOT NULL)`,
  // Checkpoints of the draft (overlay/checkpoints.ts): each distinct file text once, by its SHA-256,
  // and per version the map of object key → blob hash, deleted flag and baseline it was staged on.
  `CREATE TABLE IF NOT EXISTS checkpoint_blobs (hash TEXT PRIMARY KEY, text TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS checkpoints (
     version INTEGER PRIMARY KEY, seq INTEGER NOT NULL, created_by_name TEXT, restored_from INTEGER, files TEXT NOT NULL)`,
  // The baseline text staged files were made against, by sha256 (overlay/base-texts.ts): a rebase's merge base.
  `CREATE TABLE IF NOT EXISTS base_texts (hash TEXT PRIMARY KEY, content TEXT NOT NULL)`,
  // The project context the session keeps (overlay/baseline-cache.ts), as JSON in parts under SQLite's 2 MB value cap.
  `CREATE TABLE IF NOT EXISTS baseline_cache (part INTEGER PRIMARY KEY, data TEXT NOT NULL)`,
];

export function migrate(sql: SqlStorage): void {
  for (const statement of SCHEMA) sql.exec(statement);
}

/**
 * The `kv` table's texts as last read or written, per storage. The object is the table's only
 * writer and every write goes through `writeKv`, so the session's status and meta (read on every
 * socket frame and event) cost no storage read once known. The text is kept, not the value: each
 * read parses its own copy, so a caller changing what it got changes nothing else.
 */
const kvTexts = new WeakMap<SqlStorage, Map<string, string | null>>();

function textsOf(sql: SqlStorage): Map<string, string | null> {
  let texts = kvTexts.get(sql);
  if (!texts) kvTexts.set(sql, (texts = new Map()));
  return texts;
}

/** A JSON value stored under a key of the `kv` table. */
export function readKv<T>(sql: SqlStorage, key: string): T | undefined {
  const texts = textsOf(sql);
  let text = texts.get(key);
  if (text === undefined) {
    text = sql.exec<{ value: string }>('SELECT value FROM kv WHERE key = ?', key).toArray()[0]?.value ?? null;
    texts.set(key, text);
  }
  return text === null ? undefined : (JSON.parse(text) as T);
}

export function writeKv(sql: SqlStorage, key: string, value: unknown): void {
  const text = JSON.stringify(value);
  const texts = textsOf(sql);
  // The same value again (the last editor, at every keystroke): nothing to write.
  if (texts.get(key) === text) return;
  sql.exec('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', key, text);
  texts.set(key, text);
}

/** The storage was wiped (`deleteAll`): what was kept of its `kv` table is gone too. */
export function forgetKv(sql: SqlStorage): void {
  kvTexts.delete(sql);
}

/** Copy bytes into an ArrayBuffer of exactly their length (what SQLite's BLOB binding takes). */
export function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer;
}
