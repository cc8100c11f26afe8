// Where PostgreSQL's write-ahead log (WAL) goes for the 40-node chain of `http-chain-40.mjs`: a real `sluice serve`
// (built packages: run `npm run build` first) on a throw-away PostgreSQL database, the chain run one run at a time
// (each after the previous one's run.completed on the WebSocket and a 20 ms pause). PostgreSQL's own `pg_waldump`
// then reads the log written from the first to the last measured run, and the script adds up its records' sizes by
// table (a table's indexes apart, its TOAST table under it), per run. The WAL is what PostgreSQL flushes to disk
// before it reports a run's writes committed (docs/performance.md). It also prints the bytes of full-page images in
// those records (written when a page is first changed after a checkpoint), and the log's length by LSN.
//
// Records are counted by the relation they change, not by who changed it: run it on an otherwise idle cluster.
// Records of other databases are listed as "other database"; records of no relation (commits) as "no relation",
// whoever wrote them. It reads the server's WAL files, so it runs where PostgreSQL runs, as a user who may read its
// data directory (root or postgres). Without that access, a matching pg_waldump, a superuser on
// $SLUICE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) or PostgreSQL itself, it says why it
// skips and exits 0 (bench/run-all.mjs stays green).
// Options: --runs 30 --warmup 5 --reps 3 (each repetition: a fresh server and database; min/median/max printed).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chainSpec } from "./lib/chain-40.mjs";
import {
  PG_ADMIN_URL,
  createPgDatabase,
  eventCollector,
  httpClient,
  loadavg,
  median,
  mmm,
  parseArgs,
  pgQuery,
  startServer,
  tmpDir,
  writeOrdersCsv,
} from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { runs: 30, warmup: 5, reps: 3 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** pg_waldump of the server's major version, the WAL directory and timeline; `why` where any is out of reach. */
async function walDumpAccess() {
  let settings;
  try {
    [settings] = await pgQuery(
      PG_ADMIN_URL,
      `select current_setting('server_version_num') as version, current_setting('data_directory') as datadir,
              (select timeline_id from pg_control_checkpoint())::text as timeline,
              pg_walfile_name(pg_current_wal_lsn()) as segment`,
    );
  } catch (e) {
    return { why: `PostgreSQL on ${PG_ADMIN_URL} cannot tell where its WAL is (${e.message})` };
  }
  const major = Math.floor(Number(settings.version) / 10000);
  const candidates = [`/usr/lib/postgresql/${major}/bin/pg_waldump`, `/usr/pgsql-${major}/bin/pg_waldump`];
  const bin = candidates.find((p) => fs.existsSync(p)) ?? "pg_waldump";
  const version = spawnSync(bin, ["--version"], { encoding: "utf8" });
  if (version.status !== 0) return { why: `no pg_waldump for PostgreSQL ${major}` };
  if (Number(/(\d+)/.exec(version.stdout)?.[1]) !== major)
    return { why: `${bin} is not PostgreSQL ${major}'s (${version.stdout.trim()})` };
  const walDir = path.join(settings.datadir, "pg_wal");
  try {
    fs.accessSync(path.join(walDir, settings.segment), fs.constants.R_OK);
  } catch (e) {
    return { why: `cannot read the WAL in ${walDir} (${e.code}): run as root or postgres, where PostgreSQL runs` };
  }
  return { bin, walDir, timeline: settings.timeline };
}

/** Where relation files belong in `url`'s database: file number → { table, part }. */
async function relationFiles(url) {
  const rows = await pgQuery(
    url,
    `with r as (select c.relfilenode, c.relkind, coalesce(i.indrelid, c.oid) as tbl
                  from pg_class c left join pg_index i on i.indexrelid = c.oid where c.relfilenode <> 0)
     select r.relfilenode::text as file, coalesce(o.relname, t.relname) as table,
            r.relkind = 'i' as index, o.oid is not null as toast
       from r join pg_class t on t.oid = r.tbl left join pg_class o on o.reltoastrelid = t.oid`,
  );
  return new Map(rows.map((r) => [r.file, `${r.table}${r.toast ? " (TOAST)" : ""}${r.index ? " (indexes)" : ""}`]));
}

/** One repetition: bytes of WAL per run by where they went, full-page-image bytes, and the LSN length. */
async function once(rep) {
  const dir = tmpDir("sluice-bench-pg-wal-");
  let pgdb = null;
  let server = null;
  let http = null;
  let events = null;
  try {
    const csv = writeOrdersCsv(dir);
    pgdb = await createPgDatabase();
    const load0 = loadavg();
    server = await startServer({ dir, db: pgdb.url });
    http = httpClient(server.url, 4);
    const pipeline = await http.post("/api/pipelines", chainSpec(csv));
    events = await eventCollector(server.url, pipeline.id);
    const insertLsn = async () => (await pgQuery(PG_ADMIN_URL, "select pg_current_wal_insert_lsn()::text as l"))[0].l;
    let start = null;
    for (let i = 0; i < opts.warmup + opts.runs; i++) {
      if (i === opts.warmup) start = await insertLsn();
      const { id } = (await http.call("POST", `/api/pipelines/${pipeline.id}/run`, { params: {} })).json();
      const end = await events.waitForRun(id);
      if (end.type !== "run.completed") throw new Error(`run ${id} ended ${end.type}: ${end.error}`);
      await sleep(20);
    }
    const stop = await insertLsn();
    // pg_waldump reads what is on disk: wait until the log is flushed up to `stop` (the WAL writer does it within
    // 200 ms even for records no commit flushed)
    for (let waited = 0; ; waited += 50) {
      const [{ flushed }] = await pgQuery(PG_ADMIN_URL, `select pg_current_wal_flush_lsn() >= $1::pg_lsn as flushed`, [
        stop,
      ]);
      if (flushed) break;
      if (waited > 5000) throw new Error(`the WAL was not flushed up to ${stop} within 5 s`);
      await sleep(50);
    }
    const [{ dboid, length }] = await pgQuery(
      pgdb.url,
      `select oid::text as dboid, pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text as length
         from pg_database where datname = current_database()`,
      [start, stop],
    );
    const files = await relationFiles(pgdb.url);
    const dump = spawnSync(access.bin, ["-p", access.walDir, "-t", access.timeline, "-s", start, "-e", stop], {
      encoding: "utf8",
      maxBuffer: 1024 * 1024 * 1024,
    });
    if (dump.error || dump.status !== 0)
      throw new Error(`pg_waldump ${start} → ${stop} failed: ${dump.error?.message ?? dump.stderr.trim()}`);
    const where = new Map();
    let all = 0;
    let fullPages = 0;
    for (const line of dump.stdout.split("\n")) {
      const size = /len \(rec\/tot\):\s*(\d+)\/\s*(\d+)/.exec(line);
      if (!size) continue;
      const bytes = Number(size[2]);
      all += bytes;
      // a record's total beyond its own length is its full-page images (and their headers)
      if (/\bFPW\b/.test(line)) fullPages += bytes - Number(size[1]);
      const ref = /blkref #0: rel \d+\/(\d+)\/(\d+)/.exec(line);
      const key = !ref
        ? "no relation"
        : ref[1] !== dboid
          ? "other database"
          : (files.get(ref[2]) ?? `relation file ${ref[2]}`);
      where.set(key, (where.get(key) ?? 0) + bytes);
    }
    const perRun = (bytes) => bytes / opts.runs / 1024;
    return {
      rep,
      where: new Map([...where].map(([k, v]) => [k, perRun(v)])),
      all: perRun(all),
      fullPages: perRun(fullPages),
      lsnLength: perRun(Number(length)),
      range: `${start} → ${stop}`,
      load0,
      load1: loadavg(),
      command: server.command,
    };
  } finally {
    events?.close();
    await http?.close().catch(() => undefined);
    await server?.stop();
    await pgdb?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const access = await walDumpAccess();
if (access.why) {
  console.log(`pg-wal-by-table: skipped — ${access.why}`);
  process.exit(0);
}

const results = [];
for (let rep = 1; rep <= opts.reps; rep++) results.push(await once(rep));

const nodes = chainSpec("x.csv").nodes.length;
console.log(
  `pg-wal-by-table: chain of ${nodes} nodes (source_file + 40 transform), ${opts.runs} runs one at a time, WAL per run in KiB, ${results.length} fresh servers`,
);
for (const r of results)
  console.log(
    `  rep ${r.rep}: ${r.all.toFixed(1)} KiB per run in records (WAL ${r.range}: ${r.lsnLength.toFixed(1)} KiB per run); loadavg ${r.load0} → ${r.load1}`,
  );
const keys = [...new Set(results.flatMap((r) => [...r.where.keys()]))];
const of = (key) => results.map((r) => r.where.get(key) ?? 0);
keys.sort((a, b) => median(of(b)) - median(of(a)));
const allMedian = median(results.map((r) => r.all));
console.log(`  ${"where".padEnd(30)} min/median/max KiB per run   share of the median`);
for (const key of keys)
  console.log(
    `  ${key.padEnd(30)} ${mmm(of(key), 1).padEnd(26)} ${((100 * median(of(key))) / allMedian).toFixed(1)} %`,
  );
console.log(
  `  ${"all records".padEnd(30)} ${mmm(
    results.map((r) => r.all),
    1,
  )}`,
);
console.log(
  `  ${"of which full-page images".padEnd(30)} ${mmm(
    results.map((r) => r.fullPages),
    1,
  )}`,
);
console.log(
  `  ${"WAL length by LSN".padEnd(30)} ${mmm(
    results.map((r) => r.lsnLength),
    1,
  )} (records, page headers, padding)`,
);
console.log(
  `  server started as: ${results[0].command.replace(/--port \d+/, "--port <free>").replace(/--db \S+/, "--db postgres://postgres@127.0.0.1:5432/<throw-away>")}`,
);
console.log(
  `  reproduce: node bench/pg-wal-by-table.mjs${process.argv.length > 2 ? " " + process.argv.slice(2).join(" ") : ""}`,
);
