/**
 * Raw SQLite for tests that inspect, corrupt or hand-write store files (imported
 * by those tests alone: it loads every driver it can, once per test file),
 * through the driver the stores use in this runtime (node:sqlite on Node
 * 24, better-sqlite3 on Node 20), so no test depends on one native module.
 */
import { type SqliteConnection, sqliteDriver, type SqliteDriverName } from '../../src/storage/sqlite-driver.js';

/** The driver the stores pick here by default. */
export const rawDriver = await sqliteDriver();

/** The drivers that load in this runtime, by name. */
export const availableDrivers: SqliteDriverName[] = [];
for (const name of ['node:sqlite', 'better-sqlite3', 'bun:sqlite'] as const) {
  if (
    await sqliteDriver(name).then(
      () => true,
      () => false,
    )
  )
    availableDrivers.push(name);
}

/** Opens `file` as it is (no agt schema), read-write unless `readonly`. */
export function rawSqlite(file: string, options: { readonly?: boolean } = {}): SqliteConnection {
  return rawDriver.open(file, { readonly: options.readonly === true, busyTimeoutMs: 5000 });
}

/** A pragma's value (`user_version`, `journal_mode`, `integrity_check`). */
export function pragma(db: SqliteConnection, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined;
  return row === undefined ? undefined : Object.values(row)[0];
}
