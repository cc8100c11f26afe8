// The worker thread behind sqlite-checkpointer.ts: it copies the write-ahead log of the server's SQLite database
// back into the database file, off the event loop. SQLite would otherwise do that inside whichever commit crosses
// 1,000 log pages, stalling the server for tens of milliseconds (the copy ends with fsync). workerData: filename,
// intervalMs, truncateBytes.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const db = new Database(workerData.filename);
db.pragma("busy_timeout = 5000");

function checkpoint() {
  try {
    // PASSIVE never makes the server wait; when the log has grown large anyway (the server never paused), TRUNCATE
    // waits for a gap between the server's transactions and empties it
    db.pragma("wal_checkpoint(PASSIVE)");
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
