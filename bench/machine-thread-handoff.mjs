// What this machine charges the event loop to hand work to another thread: a probe of the machine, not of Sluice.
// Four file-system metadata calls (three `realpath`, one `stat`, on directories every Linux has) made the way a file
// node's path checks make them, asynchronously (each handed to libuv's thread pool, whose idle threads must be woken),
// against the same four calls made synchronously; timed on the calling thread only, from before the calls to the
// moment they have been handed over (async) or answered (sync), after a pause of 0, 1 and 20 ms. On a virtual machine
// waking an idle thread can cost the waker tens of microseconds (docs/performance.md, "A shared two-core machine").
// 300 rounds per pause, median per repetition; 3 repetitions (--reps), min / median / max of their medians.
//   node bench/machine-thread-handoff.mjs [--reps 3] [--rounds 300]
import fs from "node:fs";
import fsp from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { median, mmm, parseArgs } from "./lib/serve.mjs";

const opts = parseArgs(process.argv.slice(2), { reps: 3, rounds: 300 });
const PATHS = ["/tmp", "/usr", "/etc"];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function repetition(pause) {
  const handOff = [];
  const sync = [];
  for (let i = 0; i < opts.rounds; i++) {
    if (pause) await sleep(pause);
    let t0 = performance.now();
    const pending = [...PATHS.map((p) => fsp.realpath(p)), fsp.stat("/tmp")];
    handOff.push((performance.now() - t0) * 1000);
    await Promise.all(pending);
    if (pause) await sleep(pause);
    t0 = performance.now();
    for (const p of PATHS) fs.realpathSync.native(p);
    fs.statSync("/tmp");
    sync.push((performance.now() - t0) * 1000);
  }
  return { handOff: median(handOff), sync: median(sync) };
}

console.log(`four metadata calls (3 realpath + 1 stat), ${opts.rounds} rounds per pause, ${opts.reps} repetitions`);
for (const pause of [0, 1, 20]) {
  const reps = [];
  for (let r = 0; r < opts.reps; r++) reps.push(await repetition(pause));
  const handOff = reps.map((r) => r.handOff);
  const sync = reps.map((r) => r.sync);
  console.log(
    `  after ${String(pause).padStart(2)} ms: handed to the thread pool ${mmm(handOff, 0)} µs; ` +
      `made synchronously ${mmm(sync, 0)} µs (min/median/max)`,
  );
}
console.log("  reproduce: node bench/machine-thread-handoff.mjs");
