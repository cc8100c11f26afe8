import { withoutUrlSecrets } from "./engine/secret-scrubber.js";

/** Server-side log port. Never pass secrets in `fields`. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * One JSON object per line on stderr, at or above `minLevel` (env SLUICE_LOG_LEVEL, default info). Run secrets are
 * masked where runs write (see SecretScrubber); as a last net, every line also loses URL userinfo passwords and
 * secret-named query values (a driver error quoting a connection string, a URL with `?token=`).
 */
export function createConsoleLogger(
  minLevel: Level = (process.env.SLUICE_LOG_LEVEL as Level | undefined) ?? "info",
): Logger {
  const threshold = ORDER[minLevel] ?? ORDER.info;
  const write = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < threshold) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
    process.stderr.write(`${withoutUrlSecrets(line)}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
