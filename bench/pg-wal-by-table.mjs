// Where PostgreSQL's write-ahead log (WAL) goes for the 40-node chain of `http-chain-40.mjs`: a real `sluice serve`
// (built packages: run `npm run build` first) on a throw-away PostgreSQL database, the chain run one run at a time
// (each after the previous one's run.completed on the WebSocket and a 20 ms pause), then PostgreSQL's own
// `pg_waldump` reads the log written between the first and the last measured run and the script adds up its records
// by table (a table's indexes counted apart), per run. The WAL is what PostgreSQL flushes to disk before it reports
// a run's writes committed (docs/performance.md).
//
// It reads the server's WAL files, so it runs where PostgreSQL does, as a user who may read its data directory
// (root or postgres), on an otherwise idle cluster (other databases' records are listed as "other"). Without
// pg_waldump or that access it says so and exits 0 (bench/run-all.mjs stays green).
// Options: --runs 30 --warmup 5. Database: $SLUICE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { chainSpec } from "./lib/chain-40.mjs";
import {
  PG_ADMIN_URL,
  createPgDatabase,
  eventCollector,
  httpClient,
  loadavg,
  parseArgs,
  startServer,
  tmpDir,
  writeOrdersCsv,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { runs: 30, warmup: 5 });

async function query(url, sql, params = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** pg_waldump of the server's major version, and the WAL directory; null (with why) where either is out of reach. */
async function walDumpAccess() {
  const [{ version, datadir }] = await query(
    PG_ADMIN_URL,
    "select current_setting('server_version_num') as version, current_setting('data_directory') as datadir",
  );
  const major = Math.floor(Number(version) / 10000);
  const candidates = [`/usr/lib/postgresql/${major}/bin/pg_waldump`, `/usr/pgsql-${major}/bin/pg_waldump`];
  const bin = candidates.find((p) => fs.existsSync(p)) ?? "pg_waldump";
  if (spawnSync(bin, ["--version"]).status !== 0) return { why: `no pg_waldump for PostgreSQL ${major}` };
  const walDir = path.join(datadir, "pg_wal");
  try {
    fs.readdirSync(walDir);
  } catch (e) {
    return { why: `cannot read ${walDir} (${e.code}): run as root or postgres, where PostgreSQL runs` };
  }
  return { bin, walDir };
}

const access = await walDumpAccess();
if (access.why) {
  console.log(`pg-wal-by-table: skipped — ${access.why}`);
  process.exit(0);
}

const dir = tmpDir("sluice-bench-pg-wal-");
const csv = writeOrdersCsv(dir);
const pgdb = await createPgDatabase();
const load0 = loadavg();
const server = await startServer({ dir, db: pgdb.url });
const http = httpClient(server.url, 4);
let events;
try {
  const pipeline = await http.post("/api/pipelines", chainSpec(csv));
  events = await eventCollector(server.url, pipeline.id);
  const lsn = async () => (await query(PG_ADMIN_URL, "select pg_current_wal_insert_lsn()::text as l"))[0].l;
  let start = null;
  for (let i = 0; i < opts.warmup + opts.runs; i++) {
    if (i === opts.warmup) start = await lsn();
    const { id } = (await http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} })).json();
    const end = await events.waitForRun(id);
    if (end.type !== "run.completed") throw new Error(`run ${id} ended ${end.type}: ${end.error}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const stop = await lsn();

  // relation file → table (an index: its table's name and "index"), in the throw-away database
  const rels = await query(
    pgdb.url,
    `select c.relfilenode::text as file, coalesce(t.relname, c.relname) as table, c.relkind = 'i' as index
       from pg_class c left join pg_index i on i.indexrelid = c.oid left join pg_class t on t.oid = i.indrelid
      where c.relfilenode <> 0`,
  );
  const [{ dboid }] = await query(
    pgdb.url,
    "select oid::text as dboid from pg_database where datname = current_database()",
  );
  const byFile = new Map(rels.map((r) => [r.file, r]));

  const dump = spawnSync(access.bin, ["-p", access.walDir, "-s", start, "-e", stop], {
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (dump.status !== 0 && !dump.stdout) throw new Error(`pg_waldump failed: ${dump.stderr}`);
  const totals = new Map();
  let all = 0;
  for (const line of dump.stdout.split("\n")) {
    const size = /len \(rec\/tot\):\s*\d+\/\s*(\d+)/.exec(line);
    if (!size) continue;
    const bytes = Number(size[1]);
    all += bytes;
    const ref = /blkref #0: rel \d+\/(\d+)\/(\d+)/.exec(line);
    const rmgr = /rmgr: (\w+)/.exec(line)?.[1] ?? "?";
    const rel = ref && ref[1] === dboid ? byFile.get(ref[2]) : undefined;
    const key = rel ? `${rel.table}${rel.index ? " (indexes)" : ""}` : ref ? "other" : `no relation (${rmgr})`;
    totals.set(key, (totals.get(key) ?? 0) + bytes);
  }
  const kib = (b) => (b / opts.runs / 1024).toFixed(1);
  console.log(
    `pg-wal-by-table: chain of ${chainSpec(csv).nodes.length} nodes, ${opts.runs} runs one at a time; WAL ${start} → ${stop}; loadavg ${load0} → ${loadavg()}`,
  );
  console.log(`  ${"where".padEnd(34)} ${"KiB per run".padStart(11)}  share`);
  for (const [key, bytes] of [...totals].sort((a, b) => b[1] - a[1]))
    console.log(`  ${key.padEnd(34)} ${kib(bytes).padStart(11)}  ${((100 * bytes) / all).toFixed(1)} %`);
  console.log(`  ${"all".padEnd(34)} ${kib(all).padStart(11)}`);
  console.log(
    `  reproduce: node bench/pg-wal-by-table.mjs${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`,
  );
} finally {
  events?.close();
  await http.close().catch(() => undefined);
  await server.stop();
  await pgdb.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}
