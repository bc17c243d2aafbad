/**
 * The session object's deferred tasks and the one platform alarm that runs them. Every task's due
 * time is kept in memory (the `tasks` rows read once when the instance starts). Only tasks the alarm
 * acts on by name (the debounced re-validation, the release) are also rows, so a restarted object
 * still runs them; the watchdog and the audit flush only need the alarm to fire (every alarm
 * flushes the audit outbox and checks the turn), and the platform keeps the alarm across a restart,
 * so they live in memory alone: accepting a message writes no task row.
 */

/** Tasks the alarm runs by name, kept as `tasks` rows. */
const STORED_TASKS = new Set(['revalidate', 'release']);

export class AlarmTasks {
  readonly #storage: DurableObjectStorage;
  /** False once the object's storage is gone (released, or a refused creation): no alarm is set then. */
  readonly #alive: () => boolean;
  #times: Map<string, number> | undefined;
  /** When the alarm this instance set will fire (null: none set since this instance woke, or spent). */
  #alarmAt: number | null = null;

  constructor(storage: DurableObjectStorage, alive: () => boolean) {
    this.#storage = storage;
    this.#alive = alive;
  }

  /** Every task's due time, read from the rows the first time (call it where the schema is made, so no hot path reads). */
  times(): Map<string, number> {
    this.#times ??= new Map(this.#storage.sql.exec<{ name: string; due_at: number }>('SELECT name, due_at FROM tasks').toArray().map((t) => [t.name, t.due_at]));
    return this.#times;
  }

  schedule(name: string, dueAt: number): void {
    if (STORED_TASKS.has(name)) {
      this.#storage.sql.exec('INSERT INTO tasks (name, due_at) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET due_at = excluded.due_at', name, dueAt);
    }
    this.times().set(name, dueAt);
    // The co-edit debounce moves its task later at every keystroke: an alarm already set no later
    // than that fires first, finds the task not due and sets the alarm again (the last step of an
    // alarm), so only a task due sooner than the alarm needs one now.
    if (this.#alarmAt !== null && this.#alarmAt <= dueAt) return;
    if (STORED_TASKS.has(name)) return void this.arm();
    // An alarm set sooner than the one in place must reach the platform's scheduler before the
    // write that sets it commits, and whatever answer waits for that commit (the 202 of a message)
    // would wait for that too: the watchdog and the audit flush set theirs a moment later, after
    // that answer. An object that stops in between finds its running turn when it starts (onStart).
    this.#alarmAt = dueAt;
    setTimeout(() => {
      if (this.#alive()) void this.arm();
    }, 0);
  }

  unschedule(name: string): void {
    if (STORED_TASKS.has(name)) this.#storage.sql.exec('DELETE FROM tasks WHERE name = ?', name);
    this.times().delete(name);
    void this.arm();
  }

  /** Set the platform alarm to the earliest task, or delete it when none is left. */
  async arm(): Promise<void> {
    // A stored task deleted by its own code (co-edit.ts drops a pending re-validation) may still be
    // here: its alarm then fires early, finds no row due and sets the next one.
    const times = [...this.times().values()];
    const next = times.length === 0 ? null : Math.min(...times);
    this.#alarmAt = next;
    if (next === null) await this.#storage.deleteAlarm();
    else await this.#storage.setAlarm(next);
  }

  /**
   * The alarm fired at `now`: it is spent, the tasks due are dropped from memory, and the names of
   * the stored ones due are returned as their rows say (the rows are the truth for them). The caller
   * runs each after `done(name)` and ends with `arm()`.
   */
  fired(now: number): string[] {
    this.#alarmAt = null;
    const times = this.times();
    for (const [name, dueAt] of [...times]) if (dueAt <= now) times.delete(name);
    return this.#storage.sql.exec<{ name: string }>('SELECT name FROM tasks WHERE due_at <= ?', now).toArray().map((t) => t.name);
  }

  /** A stored task is about to run: its row goes. */
  done(name: string): void {
    this.#storage.sql.exec('DELETE FROM tasks WHERE name = ?', name);
  }

  /** The storage was released: no task is left, and none is read back. */
  cleared(): void {
    this.#times = new Map();
  }

  /** The storage was deleted before the object was made: read the rows again when it is. */
  forgotten(): void {
    this.#times = undefined;
  }
}
