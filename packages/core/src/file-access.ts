import syncFs, { type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import fs from "node:fs/promises";
import path from "node:path";
import { SluiceError } from "./errors.js";

/** Where nodes and connections may touch files on the server (docs/security.md). */
export interface FileAccess {
  /** Directories paths must resolve into (absolute). */
  readonly fileRoots: readonly string[];
  /** The server's own state files: refused whatever the roots. */
  readonly stateFiles: readonly string[];
}

/** Pseudo file systems that expose the process itself (`/proc/self/cwd/…`, `/proc/self/environ`, `/dev/fd/N`). */
const PSEUDO_FS = ["/proc", "/dev", "/sys"];
const MAX_LINKS = 40;

const inside = (root: string, target: string) => {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** A file-system call {@link realPathSteps} needs, made by whoever drives it (asynchronously, or synchronously). */
type PathCall = { call: "realpath" | "lstat" | "readlink"; path: string };

/**
 * Real path of `p`; for a path that does not exist yet (a file about to be created), the real path of its deepest
 * existing ancestor joined with the rest. A dangling symlink is followed to where it points, since opening or
 * creating through it would create its target. Written once as the steps it takes, each file-system call yielded
 * (a failed one thrown back in): {@link realPathAllowingMissing} makes them asynchronously,
 * {@link realPathAllowingMissingNow} synchronously.
 */
function* realPathSteps(p: string, links = 0): Generator<PathCall, string, unknown> {
  try {
    return (yield { call: "realpath", path: p }) as string;
  } catch (e) {
    if (errno(e) !== "ENOENT") throw e;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const dir = yield* realPathSteps(parent, links);
  const self = path.join(dir, path.basename(p));
  let stat: Stats | null = null;
  try {
    stat = (yield { call: "lstat", path: self }) as Stats;
  } catch {
    // missing (or unreadable): nothing to follow
  }
  if (!stat?.isSymbolicLink()) return self;
  if (links >= MAX_LINKS) throw new SluiceError("invalid", "too many levels of symbolic links");
  return yield* realPathSteps(path.resolve(dir, (yield { call: "readlink", path: self }) as string), links + 1);
}

const ASYNC_CALLS = { realpath: fs.realpath, lstat: fs.lstat, readlink: (p: string) => fs.readlink(p) };
const SYNC_CALLS = {
  realpath: syncFs.realpathSync.native,
  lstat: syncFs.lstatSync,
  readlink: (p: string) => syncFs.readlinkSync(p),
};

/**
 * Takes `steps` to their end, making each call they yield with `calls`, and giving back its result (or throwing its
 * error in). With synchronous calls it returns the steps' result; with calls that return promises, a promise of it.
 */
function drive(
  steps: Generator<PathCall, string, unknown>,
  calls: Record<PathCall["call"], (p: string) => unknown>,
  next = steps.next(),
): string | Promise<string> {
  if (next.done) return next.value;
  let result: unknown;
  try {
    result = calls[next.value.call](next.value.path);
  } catch (e) {
    return drive(steps, calls, steps.throw(e));
  }
  if (!(result instanceof Promise)) return drive(steps, calls, steps.next(result));
  return result.then(
    (value: unknown) => drive(steps, calls, steps.next(value)),
    (e: unknown) => drive(steps, calls, steps.throw(e)),
  );
}

const realPathAllowingMissing = async (p: string): Promise<string> => drive(realPathSteps(p), ASYNC_CALLS);

/** {@link realPathAllowingMissing}, synchronously: for the server's own state files only (see stateFileIdentities). */
const realPathAllowingMissingNow = (p: string): string => drive(realPathSteps(p), SYNC_CALLS) as string;

/** The server's state files as real paths (and case-folded) and, for those that exist, as device + inode. */
interface StateFileIdentities {
  readonly paths: ReadonlySet<string>;
  readonly inodes: ReadonlySet<string>;
}

/**
 * The identities of `stateFiles` now: each file's path, real path and device + inode (hard links, case-insensitive
 * disks). Looked up synchronously: these are the server's own files in its own state directory — on SQLite the
 * directory the store reads and writes synchronously on every batch — so each lookup is a metadata call answered from
 * the kernel's caches in microseconds, where a dozen asynchronous ones each waited a turn of the thread pool and the
 * event loop (about a millisecond per check, twice per file node).
 */
function stateFileIdentities(stateFiles: readonly string[]): StateFileIdentities {
  const paths = new Set<string>();
  const inodes = new Set<string>();
  for (const file of stateFiles) {
    const resolved = path.resolve(file);
    let real = resolved;
    try {
      real = realPathAllowingMissingNow(resolved);
    } catch {
      // unreadable: its own path still counts
    }
    for (const p of [resolved, real]) paths.add(p).add(p.toLowerCase());
    try {
      const stat = syncFs.statSync(file, { throwIfNoEntry: false });
      if (stat) inodes.add(inodeKey(stat));
    } catch {
      // not there (or not reachable): no inode to refuse
    }
  }
  return { paths, inodes };
}

const inodeKey = (s: Pick<Stats, "dev" | "ino">) => `${s.dev}:${s.ino}`;

const STATE_FILE_REFUSAL = "is one of the server's own state files (store database, secrets key or JWT secret)";

/**
 * Refuses a file at `real` (already resolved) when it is one of the state files: by path, case-folded path or
 * device + inode (`stat`: of the open handle, or of the path before it is opened; null when there is none yet).
 */
function assertNotStateFile(requested: string, real: string, stateFiles: readonly string[], stat: Stats | null): void {
  const state = stateFileIdentities(stateFiles);
  const refused = () => new SluiceError("forbidden", `path '${requested}' ${STATE_FILE_REFUSAL}`);
  if (state.paths.has(real) || state.paths.has(real.toLowerCase())) throw refused();
  if (stat && state.inodes.has(inodeKey(stat))) throw refused();
}

/**
 * Resolves a path a node or connection wants to use on the server (docs/security.md): relative paths are taken from
 * the first root; `..` segments and symlinks that lead outside every root are refused; `/proc`, `/dev` and `/sys`
 * are refused unless a root lies inside them; the server's own state files are refused whatever the roots; what
 * exists must be a regular file or a directory (not a pipe, socket or device).
 * Returns the real, absolute path to open (no symlinks left in it). Check again at every use: a symlink may be
 * created after a first check.
 */
export async function resolveConfinedPath(requested: string, access: FileAccess): Promise<string> {
  if (!requested || requested.includes("\0")) throw new SluiceError("invalid", "file path is empty or invalid");
  const roots = access.fileRoots;
  if (roots.length === 0) throw noRoots();
  const candidate = path.resolve(roots[0]!, requested);
  if (!roots.some((r) => inside(path.resolve(r), candidate))) throw outsideRoots(requested, roots);
  // looked up at once: the stat follows the path's symlinks as the real path does (a race between them is what the
  // check after opening is for)
  const [real, realRoots, stat] = await Promise.all([
    realPathAllowingMissing(candidate),
    realRootsOf(access),
    fs.stat(candidate).catch(() => null),
  ]);
  checkConfined(requested, real, access, realRoots, stat, candidate);
  return real;
}

const noRoots = () => new SluiceError("forbidden", "no file roots are configured (--file-roots)");

const outsideRoots = (requested: string, roots: readonly string[]) =>
  new SluiceError("forbidden", `path '${requested}' is outside the allowed file roots (${roots.join(", ")})`);

/** The real paths of the file roots, now. */
const realRootsOf = (access: FileAccess) =>
  Promise.all(access.fileRoots.map((r) => realPathAllowingMissing(path.resolve(r))));

/**
 * Checks a path already known to be real (absolute, no symlink in it — e.g. read back from an open descriptor) the
 * way {@link resolveConfinedPath} checks the path it resolves: inside the real roots, not in `/proc`, `/dev` or
 * `/sys` unless a root is, not one of the state files (by path, case-folded path, or device + inode: pass `opened`,
 * the stat of what is open or about to be replaced, to check the inode without looking the path up again).
 */
export async function assertConfinedRealPath(
  requested: string,
  real: string,
  access: FileAccess,
  opened?: Stats,
): Promise<void> {
  const [realRoots, stat] = await Promise.all([realRootsOf(access), opened ?? fs.stat(real).catch(() => null)]);
  checkConfined(requested, real, access, realRoots, stat, real);
}

/**
 * Checks the file open as `handle` (opened by the name `openedAs`) where it really is now, as
 * {@link assertConfinedRealPath} does: any directory of its path may have been swapped for a symlink between resolving
 * the path and opening it. Returns the handle's stat.
 */
export async function assertOpenedConfined(
  requested: string,
  handle: FileHandle,
  openedAs: string,
  access: FileAccess,
): Promise<Stats> {
  const [opened, real, realRoots] = await Promise.all([
    handle.stat(),
    openedRealPath(requested, handle, openedAs),
    realRootsOf(access),
  ]);
  checkConfined(requested, real, access, realRoots, opened, real);
  return opened;
}

/** The checks of a real path against the real roots, the pseudo file systems and the state files (see above). */
function checkConfined(
  requested: string,
  real: string,
  access: FileAccess,
  realRoots: readonly string[],
  stat: Stats | null,
  candidate: string,
): void {
  if (realRoots.length === 0) throw noRoots();
  if (!path.isAbsolute(real)) throw outsideRoots(requested, access.fileRoots);
  if (!realRoots.some((r) => inside(r, real))) {
    throw new SluiceError(
      "forbidden",
      `path '${requested}' leads outside the allowed file roots through a symbolic link`,
    );
  }
  for (const pseudo of PSEUDO_FS) {
    const hits = [candidate, real].some((p) => inside(pseudo, p));
    if (hits && !realRoots.some((r) => inside(pseudo, r))) {
      throw new SluiceError("forbidden", `path '${requested}' is inside ${pseudo}, which no root names explicitly`);
    }
  }
  assertNotStateFile(requested, real, access.stateFiles, stat);
  // a named pipe blocks the thread that opens or reads it until someone writes (libuv has four, shared by every file
  // read, DNS lookup and password hash of the server); a device or socket is no file's data either
  if (stat && !stat.isFile() && !stat.isDirectory()) {
    throw new SluiceError("forbidden", `path '${requested}' is not a regular file (a pipe, socket or device)`);
  }
}

/**
 * Where the file open as `handle` (opened by the name `real`) really is now, for the checks after opening: any
 * directory of its path may have been swapped for a symlink between resolving the path and opening it. Read back
 * from the descriptor (`/proc/self/fd/N`) on Linux; elsewhere the real path of the name, trusted only if it is the
 * file that is open (same device + inode).
 */
export async function openedRealPath(requested: string, handle: FileHandle, real: string): Promise<string> {
  if (process.platform === "linux") {
    const fromDescriptor = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (fromDescriptor !== null) return fromDescriptor;
  }
  const [now, opened] = await Promise.all([fs.realpath(real), handle.stat()]);
  const found = await fs.stat(now);
  if (found.dev !== opened.dev || found.ino !== opened.ino)
    throw new SluiceError("forbidden", `path '${requested}' changed while it was being opened`);
  return now;
}
