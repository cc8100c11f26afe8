// The worker thread behind sqlite-checkpointer.ts: it copies the write-ahead log of the server's SQLite database
// back into the database file, off the event loop. SQLite would otherwise do that inside whichever commit crosses
// 1,000 log pages, stalling the server for tens of milliseconds (the copy ends with fsync). workerData: filename,
// intervalMs, restartFrames, truncateBytes.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const db = new Database(workerData.filename);
// no waiting: a RESTART or TRUNCATE that waited for a reader (an operator's shell, a backup) would hold the server's
// writes meanwhile. One that finds the database busy copies what it can, and the next one, 500 ms later, tries again
db.pragma("busy_timeout = 0");

function checkpoint() {
  try {
    // PASSIVE never makes the server wait. The log starts again from its beginning only when the server begins a
    // transaction with every frame copied, which under writes that never pause hardly happens: it grew by about 10 KiB
    // a run, to 256 MiB, where emptying it held the server for 120-200 ms. So once it holds restartFrames, RESTART
    // makes the server's next transaction wait for the frames written since the PASSIVE just before (5-30 ms) and
    // start the log again from its beginning; the file keeps its size and is written over
    const [{ log }] = db.pragma("wal_checkpoint(PASSIVE)");
    if (log > workerData.restartFrames) db.pragma("wal_checkpoint(RESTART)");
    // a file that has grown large anyway (a reader held the log) is emptied, when the server is between transactions
    if (walBytes() > workerData.truncateBytes) db.pragma("wal_checkpoint(TRUNCATE)");
  } catch (e) {
    parentPort.postMessage({ t: "error", message: e instanceof Error ? e.message : String(e) });
  }
}

function walBytes() {
  try {
    return fs.statSync(`${workerData.filename}-wal`).size;
  } catch {
    return 0;
  }
}

const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message.t !== "close") return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
