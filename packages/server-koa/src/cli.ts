import { parseArgs } from "node:util";
import {
  API_KEY_PATTERN,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_STALE_MS,
  SLUICE_VERSION,
  createSluice,
  generateApiKey,
  isSluiceError,
  migrateDatabase,
  killSqliteWorkers,
  unlockMigrations,
} from "@sluice/core";
import { deploy } from "./deploy.js";
import { startServer } from "./server.js";
import { findWebRoot } from "./web-ui.js";

/** How long a SIGTERM/SIGINT shutdown may take before the process ends itself. */
const SHUTDOWN_LIMIT_MS = 15_000;

const HELP = `sluice ${SLUICE_VERSION} — data-pipeline orchestration server

Usage:
  sluice serve [options]     start the API server
  sluice migrate [--unlock]  apply pending database migrations and exit; --unlock frees a migration lock
  sluice generate-key        print a new API key
  sluice create-user         add a user of any role (the way to a first superadmin), straight in the database
  sluice deploy PATH…        create or update pipelines by name from .json/.js/.mjs files or directories
  sluice --help | --version

serve options (each also from an environment variable):
  --host HOST                  address to bind (SLUICE_HOST, default 0.0.0.0)
  --port PORT                  port to listen on (SLUICE_PORT, default 8080)
  --db DATABASE                file path, sqlite:PATH, postgres://… or mysql://… (SLUICE_DB, default ./sluice.db)
  --api-key KEY                accepted API key (svc_ + 48 hex, see generate-key); repeat or comma-separate for
                               several. Prefer SLUICE_API_KEY: arguments are visible to every user in ps. With
                               a key the server is never open: until a user exists, requests need the key
  --max-concurrent-runs N      runs executing at once (SLUICE_MAX_CONCURRENT_RUNS, default 8)
  --file-roots A:B             directories file nodes and SQLite connections may use (SLUICE_FILE_ROOTS, default
                               {data dir}/files and the OS temp dir); the server's own files are never reachable
  --cors-origin ORIGINS        allow browser calls from these origins, comma-separated (SLUICE_CORS_ORIGIN,
                               default off; * allows any origin without cookies)
  --trust-proxy                trust X-Forwarded-* headers (SLUICE_TRUST_PROXY=1)
  --allowed-hosts NAMES        host names the server may be reached by while it has no users, comma-separated
                               (SLUICE_ALLOWED_HOSTS); IP addresses, localhost and dotless names always work
  --no-ui                      serve the API only, without the web UI at / (SLUICE_UI=0)
  --heartbeat-ms MS            how often running runs get a heartbeat (SLUICE_HEARTBEAT_MS, default 5000)
  --stale-ms MS                a run whose owner sent no heartbeat for this long is failed with \`interrupted\` by
                               another instance (SLUICE_STALE_MS, default 20000; more than twice --heartbeat-ms)
  --instance-id ID             this instance's name in run owners instead of the host name (SLUICE_INSTANCE_ID);
                               unique per machine. Runs of another host's owner are judged by heartbeat age only

migrate options:
  --db DATABASE                as for serve (SLUICE_DB, default ./sluice.db)
  --unlock                     only free the migration lock left set by a crashed migration (knex's
                               sluice_migrations_lock); do this only when no other instance is migrating

create-user options:
  --db DATABASE                as for serve (SLUICE_DB, default ./sluice.db)
  --username NAME              the new user's name
  --role ROLE                  superadmin, admin, editor or viewer (default superadmin)
                               the password is read from SLUICE_NEW_PASSWORD, else from the first line of stdin

deploy options:
  --url URL                    server to deploy to (SLUICE_URL, default http://localhost:8080)
  --api-key KEY                API key (SLUICE_API_KEY)
  --token JWT                  a login token instead of an API key (SLUICE_TOKEN)

environment:
  SVC_JWT_SECRET               JWT signing secret, 32 bytes (64 hex chars, 32 chars, or base64); default: the
                               file .svc-jwt-secret beside the database (created on first run, mode 0600)
`;

class UsageError extends Error {}

function fail(message: string, code: number): never {
  process.stderr.write(`sluice: ${message.split("\n")[0]}\n`);
  process.exit(code);
}

function intOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new UsageError(`--${name} must be an integer, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function splitList(values: readonly string[], separator: RegExp): string[] {
  return values
    .flatMap((v) => v.split(separator))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/**
 * `--api-key` (repeated or comma-separated), else `SLUICE_API_KEY`. A malformed key stops the server: started
 * with one, it would otherwise run with no key at all — and in open mode. The message never repeats the value.
 */
function apiKeyOption(flags: readonly string[] | undefined, fromEnv: string | undefined): string[] {
  const source = flags ? "--api-key" : "SLUICE_API_KEY";
  const raw = flags ?? (fromEnv !== undefined ? [fromEnv] : []);
  const keys = splitList(raw, /,/);
  // an empty SLUICE_API_KEY counts as unset (blank entries in env files); an empty flag is a mistake
  if (flags && keys.length === 0) throw new UsageError("--api-key is empty");
  keys.forEach((key, i) => {
    if (!API_KEY_PATTERN.test(key)) {
      throw new UsageError(
        `${source}: key ${i + 1} (${key.length} characters) is not an API key: expected svc_ followed by 48 lowercase hex ` +
          "characters, as printed by 'sluice generate-key'",
      );
    }
  });
  return keys;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      db: { type: "string" },
      "api-key": { type: "string", multiple: true },
      "max-concurrent-runs": { type: "string" },
      "file-roots": { type: "string" },
      "cors-origin": { type: "string" },
      "allowed-hosts": { type: "string" },
      "trust-proxy": { type: "boolean" },
      "no-ui": { type: "boolean" },
      "heartbeat-ms": { type: "string" },
      "stale-ms": { type: "string" },
      "instance-id": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const env = process.env;
  const host = values.host ?? env.SLUICE_HOST ?? "0.0.0.0";
  const port = intOption("port", values.port ?? env.SLUICE_PORT, 8080, 0, 65535);
  const maxConcurrentRuns = intOption(
    "max-concurrent-runs",
    values["max-concurrent-runs"] ?? env.SLUICE_MAX_CONCURRENT_RUNS,
    8,
    1,
    1024,
  );
  const database = values.db ?? env.SLUICE_DB ?? "./sluice.db";
  const apiKeys = apiKeyOption(values["api-key"], env.SLUICE_API_KEY);
  const fileRootsRaw = values["file-roots"] ?? env.SLUICE_FILE_ROOTS;
  const fileRoots = fileRootsRaw ? splitList([fileRootsRaw], /:/) : undefined;
  const proxy = values["trust-proxy"] ?? env.SLUICE_TRUST_PROXY === "1";
  const corsOrigins = splitList([values["cors-origin"] ?? env.SLUICE_CORS_ORIGIN ?? ""], /,/);
  const allowedHosts = splitList([values["allowed-hosts"] ?? env.SLUICE_ALLOWED_HOSTS ?? ""], /,/);
  const uiRoot = values["no-ui"] || env.SLUICE_UI === "0" ? null : findWebRoot();
  const heartbeatMs = intOption(
    "heartbeat-ms",
    values["heartbeat-ms"] ?? env.SLUICE_HEARTBEAT_MS,
    DEFAULT_HEARTBEAT_MS,
    50,
    600_000,
  );
  const staleMs = intOption("stale-ms", values["stale-ms"] ?? env.SLUICE_STALE_MS, DEFAULT_STALE_MS, 100, 3_600_000);
  if (staleMs <= 2 * heartbeatMs) {
    throw new UsageError(
      `--stale-ms (${staleMs}) must exceed twice --heartbeat-ms (${heartbeatMs}), or a live but slow instance's runs ` +
        "would be taken for dead",
    );
  }
  const instanceId = values["instance-id"] ?? (env.SLUICE_INSTANCE_ID || undefined);
  if (instanceId !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(instanceId)) {
    throw new UsageError(`--instance-id must be 1-64 letters, digits, '.', '_' or '-', got '${instanceId}'`);
  }

  const sluice = await createSluice({
    database,
    maxConcurrentRuns,
    apiKeys,
    fileRoots,
    heartbeatMs,
    staleMs,
    instanceId,
  });
  const logger = sluice.options.logger;
  let running;
  try {
    await sluice.start();
    running = await startServer(sluice, {
      host,
      port,
      proxy,
      corsOrigins,
      allowedHosts,
      ui: uiRoot ? { root: uiRoot } : false,
    });
  } catch (e) {
    await sluice.close().catch(() => undefined);
    throw e;
  }
  logger.info(`sluice ${SLUICE_VERSION} listening on ${running.url} (${sluice.options.dialect})`);
  process.stdout.write(
    `Sluice ${SLUICE_VERSION} listening on ${running.url}/api (database: ${sluice.options.dialect})\n` +
      (uiRoot ? `Web UI: open ${running.url} in a browser\n` : ""),
  );
  if (!uiRoot && !values["no-ui"] && env.SLUICE_UI !== "0") {
    logger.warn("the web UI is not built (npm run build -w @sluice/web); serving the API only");
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`received ${signal}, shutting down`);
    // a shutdown that hangs (a thread stuck in native code blocks even process.exit) ends the process outright,
    // taking the SQLite worker processes along first
    const forceExit = () => {
      logger.warn(`the shutdown did not finish within ${SHUTDOWN_LIMIT_MS / 1000} s; ending the process`);
      killSqliteWorkers();
      process.kill(process.pid, "SIGKILL");
    };
    const deadline = setTimeout(forceExit, SHUTDOWN_LIMIT_MS);
    void (async () => {
      await running.close();
      await sluice.close();
      clearTimeout(deadline);
      process.exit(0);
    })().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e), 1));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

/** `sluice migrate`: migrations as a deploy step of their own; `--unlock` frees a lock a crashed migration left. */
async function migrate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { db: { type: "string" }, unlock: { type: "boolean" }, help: { type: "boolean", short: "h" } },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const database = values.db ?? process.env.SLUICE_DB ?? "./sluice.db";
  if (values.unlock) {
    const wasHeld = await unlockMigrations(database);
    process.stdout.write(
      wasHeld
        ? "released the migration lock (sluice_migrations_lock); start sluice or run 'sluice migrate' to migrate\n"
        : "the migration lock was not held; nothing to release\n",
    );
    return;
  }
  const applied = await migrateDatabase(database);
  process.stdout.write(
    applied.length === 0
      ? "the database is up to date; no migrations to apply\n"
      : `applied ${applied.length} migration(s): ${applied.join(", ")}\n`,
  );
}

/** `sluice create-user`: for the operator, who holds the database anyway; the only way to a first superadmin. */
async function createUser(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { db: { type: "string" }, username: { type: "string" }, role: { type: "string" } },
  });
  if (!values.username) throw new UsageError("create-user needs --username NAME");
  const password = process.env.SLUICE_NEW_PASSWORD ?? (await firstLineOfStdin());
  const sluice = await createSluice({ database: values.db ?? process.env.SLUICE_DB ?? "./sluice.db" });
  try {
    const user = await sluice.auth.createUserAsOperator({
      username: values.username,
      password,
      role: values.role ?? "superadmin",
    });
    process.stdout.write(`created ${user.role} '${user.username}' (${user.id})\n`);
  } finally {
    await sluice.close();
  }
}

async function firstLineOfStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(HELP);
      return;
    case "--version":
    case "-v":
    case "version":
      process.stdout.write(`${SLUICE_VERSION}\n`);
      return;
    case "generate-key":
      if (rest.length > 0) throw new UsageError(`generate-key takes no arguments`);
      process.stdout.write("New API key (start the server with: sluice serve --api-key <key>):\n");
      process.stdout.write(`${generateApiKey()}\n`);
      return;
    case "serve":
      return serve(rest);
    case "migrate":
      return migrate(rest);
    case "create-user":
      return createUser(rest);
    case "deploy":
      return deploy(rest);
    default:
      throw new UsageError(`unknown command '${command}' (try 'sluice --help')`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) fail(e.message, 2);
  const code = (e as { code?: string }).code;
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))
    fail(`${(e as Error).message} (try 'sluice --help')`, 2);
  if (code === "EADDRINUSE") fail(`address already in use: ${(e as Error).message}`, 1);
  fail(isSluiceError(e) ? e.message : e instanceof Error ? e.message : String(e), 1);
});
