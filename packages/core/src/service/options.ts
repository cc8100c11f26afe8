import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { API_KEY_PATTERN } from "../auth/api-keys.js";
import type { Clock } from "../clock.js";
import { systemClock } from "../clock.js";
import { createConsoleLogger, type Logger } from "../logger.js";
import type { SecretsResolver } from "../connectors/resolver.js";
import { DEFAULT_HEARTBEAT_MS, DEFAULT_STALE_MS } from "../engine/executor.js";
import type { DnsResolver } from "../engine/http/address-guard.js";
import type { NodeTypeRegistry } from "../engine/node-type.js";
import { stateFilesOf } from "./state-files.js";
import { parseDatabaseUrl } from "../store/database-url.js";
import type { DialectName } from "../store/ports.js";
import { SECRET_KEY_ENV } from "../vault/vault.js";

export const SluiceOptionsSchema = z
  .object({
    /** File path, `sqlite:PATH`, `postgres://…` or `mysql://…`. */
    database: z.string().min(1).default("./sluice.db"),
    /** Runs executing at once in this process. */
    maxConcurrentRuns: z.number().int().min(1).max(1024).default(8),
    /** Node parallelism within a wave, unless a pipeline sets its own. */
    parallelism: z.number().int().min(1).max(64).default(4),
    /**
     * Directories that source_file/sink_file paths and SQLite connection paths must resolve into. Default:
     * `{data dir}/files` (created at start) and the OS temp dir. The server's own state files stay out of reach
     * whatever the roots.
     */
    fileRoots: z.array(z.string().min(1)).optional(),
    /** API keys accepted as admin credentials (`svc_` + 48 hex). */
    apiKeys: z
      .array(z.string().regex(API_KEY_PATTERN, "an API key is svc_ followed by 48 lowercase hex characters"))
      .default([]),
    /**
     * Where `.svc-jwt-secret` (and, for server databases, the secrets key) live. Default: beside a SQLite file,
     * else the working directory.
     */
    stateDir: z.string().optional(),
    /** JWT signing secret (32 bytes: hex, plain or base64). Default: env `SVC_JWT_SECRET`, else `.svc-jwt-secret`. */
    jwtSecret: z.string().min(1).optional(),
    logger: z
      .custom<Logger>((v) => typeof v === "object" && v !== null && typeof (v as Logger).error === "function")
      .optional(),
    /** Secrets key (32 bytes: 64 hex or base64). Default: env `SLUICE_SECRET_KEY`, else the key file (`{db}.key`). */
    secretKey: z.string().min(1).optional(),
    /** Replaces how nodes reach connections and variables (default: the stored ones, `sluice.secrets`). */
    secrets: z
      .custom<SecretsResolver>(
        (v) => typeof v === "object" && v !== null && typeof (v as SecretsResolver).connection === "function",
      )
      .optional(),
    /** Extra or replacement node types, merged over the built-in registry (keyed by type name). */
    nodeTypes: z.custom<NodeTypeRegistry>((v) => typeof v === "object" && v !== null).optional(),
    /** Fallback poll (ms) for runs queued by other instances; triggers in this process start at once. */
    executorPollMs: z.number().int().min(10).max(600_000).default(1000),
    /** How often (ms) this process stamps a heartbeat on the runs it executes and looks for runs of dead owners. */
    heartbeatMs: z.number().int().min(50).max(600_000).default(DEFAULT_HEARTBEAT_MS),
    /**
     * A `running` run whose owner has sent no heartbeat for this long (ms) is marked `failed` / `interrupted` by
     * another instance. Must exceed twice `heartbeatMs`, so a slow heartbeat never passes for a dead owner.
     */
    staleMs: z.number().int().min(100).max(3_600_000).default(DEFAULT_STALE_MS),
    /**
     * Replaces the host name in this executor's owner id (`{instanceId}:{pid}:{random}`). An owner on this host is
     * dead as soon as its process is; one of another host only once its heartbeat is stale. Unique per machine.
     */
    instanceId: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, "an instance id is 1-64 letters, digits, '.', '_' or '-'")
      .optional(),
    /**
     * How host names of outbound connections made for a user resolve (HTTP nodes, hooks, notify, connection tests);
     * default system DNS. Every answer passes the address guard (no link-local or cloud-metadata address).
     */
    resolver: z.custom<DnsResolver>((v) => typeof v === "function").optional(),
    clock: z
      .custom<Clock>((v) => typeof v === "object" && v !== null && typeof (v as Clock).now === "function")
      .optional(),
  })
  .strict()
  .refine((o) => o.staleMs > 2 * o.heartbeatMs, {
    message: "staleMs must exceed twice heartbeatMs",
    path: ["staleMs"],
  });

export type SluiceOptions = z.input<typeof SluiceOptionsSchema>;

export interface ResolvedSluiceOptions {
  readonly database: string;
  /** The store's database kind. */
  readonly dialect: DialectName;
  /** The SQLite store file (":memory:" in memory), or null for a server database. */
  readonly sqliteFile: string | null;
  readonly maxConcurrentRuns: number;
  readonly parallelism: number;
  readonly fileRoots: readonly string[];
  /** Whether `fileRoots` are the defaults (`{data dir}/files`, created at start, and the OS temp dir). */
  readonly defaultFileRoots: boolean;
  /** The server's own files (store database and side files, key file, JWT secret): never reachable by nodes. */
  readonly stateFiles: readonly string[];
  readonly apiKeys: readonly string[];
  readonly stateDir: string;
  readonly executorPollMs: number;
  readonly heartbeatMs: number;
  readonly staleMs: number;
  readonly instanceId: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly resolver: DnsResolver | undefined;
  readonly secrets: SecretsResolver | undefined;
  readonly nodeTypes: NodeTypeRegistry;
}

/** Secrets from the options or the environment: kept out of `ResolvedSluiceOptions`, which embedders may log. */
export interface ResolvedSecrets {
  readonly jwtSecret: string | undefined;
  readonly secretKey: string | undefined;
}

/**
 * Reads the options and the environment once (SVC_JWT_SECRET, SLUICE_SECRET_KEY): nothing after this looks at the
 * raw options or `process.env` again.
 */
export function resolveOptions(
  input: SluiceOptions,
  env: NodeJS.ProcessEnv = process.env,
): { options: ResolvedSluiceOptions; secrets: ResolvedSecrets } {
  const parsed = SluiceOptionsSchema.parse(input);
  const database = parseDatabaseUrl(parsed.database);
  const sqliteFile = database.filePath;
  const stateDir = path.resolve(
    parsed.stateDir ?? (sqliteFile && sqliteFile !== ":memory:" ? path.dirname(sqliteFile) : process.cwd()),
  );
  const options: ResolvedSluiceOptions = Object.freeze({
    database: parsed.database,
    dialect: database.dialect,
    sqliteFile,
    maxConcurrentRuns: parsed.maxConcurrentRuns,
    parallelism: parsed.parallelism,
    fileRoots: Object.freeze((parsed.fileRoots ?? defaultFileRoots(stateDir)).map((r) => path.resolve(r))),
    defaultFileRoots: parsed.fileRoots === undefined,
    stateFiles: Object.freeze(stateFilesOf(sqliteFile, stateDir)),
    apiKeys: Object.freeze([...parsed.apiKeys]),
    stateDir,
    executorPollMs: parsed.executorPollMs,
    heartbeatMs: parsed.heartbeatMs,
    staleMs: parsed.staleMs,
    instanceId: parsed.instanceId,
    clock: parsed.clock ?? systemClock,
    logger: parsed.logger ?? createConsoleLogger(),
    resolver: parsed.resolver,
    secrets: parsed.secrets,
    nodeTypes: Object.freeze({ ...(parsed.nodeTypes ?? {}) }),
  });
  const secrets: ResolvedSecrets = Object.freeze({
    jwtSecret: parsed.jwtSecret ?? env.SVC_JWT_SECRET,
    secretKey: parsed.secretKey ?? env[SECRET_KEY_ENV],
  });
  return { options, secrets };
}

/** `{data dir}/files` and the OS temp dir: never the data directory itself, where the state files live. */
const defaultFileRoots = (stateDir: string): string[] => [path.join(stateDir, "files"), os.tmpdir()];
