/** Whether a driver error is a unique-constraint violation (SQLite, PostgreSQL, MySQL/MariaDB). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: unknown; errno?: unknown };
  return (
    err.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    err.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    err.code === "23505" ||
    err.code === "ER_DUP_ENTRY" ||
    err.errno === 1062
  );
}
