/** Starts the real `sluice serve` (the built bin, as users run it) as a child process on an ephemeral port. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

export const SLUICE_BIN = fileURLToPath(new URL("../packages/server-koa/bin/sluice.js", import.meta.url));

export interface ServeProcess {
  /** `http://127.0.0.1:PORT`, without /api. */
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `sluice serve --host 127.0.0.1 --port 0 …args` in `cwd` and waits for its "listening on" line. */
export async function spawnServe(
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; startTimeoutMs?: number },
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [SLUICE_BIN, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sluice serve did not start: ${out}`)),
      options.startTimeoutMs ?? 60_000,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/api/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1].replace("localhost", "127.0.0.1"));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`sluice serve exited with ${code}: ${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.removeAllListeners("exit");
        child.once("exit", (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * `sluice serve --no-ui --db DB --instance-id ID` in a fresh temp dir, with short heartbeat and stale limits when
 * given (several "hosts" on one machine, judged by heartbeat only). Registers the process in `started` so the test
 * file can kill what it started.
 */
export async function spawnInstance(
  db: string,
  instanceId: string,
  options: { heartbeatMs?: number; staleMs?: number; cwd: string; started: ServeProcess[] },
): Promise<ServeProcess> {
  const args = ["--no-ui", "--db", db, "--instance-id", instanceId];
  if (options.heartbeatMs !== undefined) args.push("--heartbeat-ms", String(options.heartbeatMs));
  const env: Record<string, string> = {};
  if (options.staleMs !== undefined) env.SLUICE_STALE_MS = String(options.staleMs);
  const server = await spawnServe(args, { cwd: options.cwd, env, startTimeoutMs: 30_000 });
  options.started.push(server);
  return server;
}

/** JSON from `{url}/api{path}`: GET, or POST of `json`. Throws on a status ≥ 400, with the body. */
export async function apiJson<T>(url: string, path: string, json?: unknown): Promise<T> {
  const res = await fetch(`${url}/api${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  if (res.status >= 400) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}
