/**
 * A throw-away PostgreSQL cluster of its own (initdb in a temp directory, its own port and socket directory), for
 * tests that stop and restart the database server without touching the shared one other tests use.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PgCluster {
  port: number;
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  adminUrl: string;
  /** Fast shutdown (every session is terminated), then start again; resolves once it accepts connections. */
  restart(downMs?: number): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/** The newest installed server binaries (Debian: /usr/lib/postgresql/<major>/bin), or null. */
export function pgBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return null;
  const majors = fs
    .readdirSync(root)
    .filter((d) => fs.existsSync(path.join(root, d, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] ? path.join(root, majors[0], "bin") : null;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-pg-"));
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  // initdb refuses to run as root: run the server tools as the postgres user, which then owns the directory
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    fs.chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const tool = (name: string, args: string[]) =>
    asRoot ? run("runuser", ["-u", "postgres", "--", path.join(bin, name), ...args]) : run(path.join(bin, name), args);
  const port = await freePort();
  await tool("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c max_connections=200",
  ].join(" ");
  const start = () => tool("pg_ctl", ["-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"]);
  const stop = () => tool("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
  await start();
  return {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(downMs = 0) {
      await stop();
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async destroy() {
      await stop().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
