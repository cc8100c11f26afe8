// Loaded into a `sluice serve` by bench/http-alloc.mjs (`node --import bench/lib/alloc-sampler.mjs …`): V8's sampling
// heap profiler, with objects the garbage collector has already freed kept in the profile, so that it counts what the
// server allocated, not what is still alive. The first SIGUSR2 starts sampling and, once it does, writes
// "$SLUICE_BENCH_ALLOC_OUT.started"; the second stops it and writes the profile to $SLUICE_BENCH_ALLOC_OUT (or
// `{"error": …}` there). Only the main thread samples (the SQLite checkpoint thread loads this too).
// Not product code: nothing in the server refers to it.
import fs from "node:fs";
import inspector from "node:inspector";
import { isMainThread } from "node:worker_threads";

/** One sample per this many bytes allocated, on average (V8 draws the intervals at random around it). */
const SAMPLING_INTERVAL_BYTES = 4096;

if (isMainThread && process.env.SLUICE_BENCH_ALLOC_OUT) {
  const out = process.env.SLUICE_BENCH_ALLOC_OUT;
  const session = new inspector.Session();
  session.connect();
  session.post("HeapProfiler.enable");
  let sampling = false;
  process.on("SIGUSR2", () => {
    if (!sampling) {
      sampling = true;
      session.post(
        "HeapProfiler.startSampling",
        {
          samplingInterval: SAMPLING_INTERVAL_BYTES,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        },
        (error) => {
          if (error) fs.writeFileSync(out, JSON.stringify({ error: error.message })); // small: one write
          fs.writeFileSync(`${out}.started`, error ? "failed" : "sampling");
        },
      );
      return;
    }
    sampling = false;
    session.post("HeapProfiler.stopSampling", (error, result) => {
      // written aside, then renamed: the benchmark reads the file as soon as it appears
      fs.writeFileSync(
        `${out}.partial`,
        error ? JSON.stringify({ error: error.message }) : JSON.stringify(result.profile),
      );
      fs.renameSync(`${out}.partial`, out);
    });
  });
}
