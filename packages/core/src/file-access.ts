import type { Stats } from "node:fs";
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

/**
 * Real path of `p`; for a path that does not exist yet (a file about to be created), the real path of its deepest
 * existing ancestor joined with the rest. A dangling symlink is followed to where it points, since opening or
 * creating through it would create its target.
 */
async function realPathAllowingMissing(p: string, links = 0): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (e) {
    if (errno(e) !== "ENOENT") throw e;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const dir = await realPathAllowingMissing(parent, links);
  const self = path.join(dir, path.basename(p));
  const stat = await fs.lstat(self).catch(() => null);
  if (!stat?.isSymbolicLink()) return self;
  if (links >= MAX_LINKS) throw new SluiceError("invalid", "too many levels of symbolic links");
  return realPathAllowingMissing(path.resolve(dir, await fs.readlink(self)), links + 1);
}

/** The server's state files as real paths (and case-folded) and, for those that exist, as device + inode. */
interface StateFileIdentities {
  readonly paths: ReadonlySet<string>;
  readonly inodes: ReadonlySet<string>;
}

/**
 * The identities of `stateFiles` now: each file's path, real path and device + inode (hard links, case-insensitive
 * disks). The files are looked up concurrently: one check costs the latency of one lookup, not of a dozen in turn.
 */
async function stateFileIdentities(stateFiles: readonly string[]): Promise<StateFileIdentities> {
  const paths = new Set<string>();
  const inodes = new Set<string>();
  const found = await Promise.all(
    stateFiles.map(async (file) => {
      const resolved = path.resolve(file);
      const [real, stat] = await Promise.all([
        realPathAllowingMissing(resolved).catch(() => resolved),
        fs.stat(file).catch(() => null),
      ]);
      return { resolved, real, stat };
    }),
  );
  for (const { resolved, real, stat } of found) {
    for (const p of [resolved, real]) paths.add(p).add(p.toLowerCase());
    if (stat) inodes.add(inodeKey(stat));
  }
  return { paths, inodes };
}

const inodeKey = (s: Pick<Stats, "dev" | "ino">) => `${s.dev}:${s.ino}`;

const STATE_FILE_REFUSAL = "is one of the server's own state files (store database, secrets key or JWT secret)";

/**
 * Refuses a file opened at `real` (already resolved) when it is one of the state files: by path, case-folded path
 * or device + inode. Pass `opened` (fstat of the open handle) to close the gap between the check and the open.
 */
async function assertNotStateFile(
  requested: string,
  real: string,
  stateFiles: readonly string[],
  opened?: Stats,
): Promise<void> {
  const state = await stateFileIdentities(stateFiles);
  const refused = () => new SluiceError("forbidden", `path '${requested}' ${STATE_FILE_REFUSAL}`);
  if (state.paths.has(real) || state.paths.has(real.toLowerCase())) throw refused();
  const stat = opened ?? (await fs.stat(real).catch(() => null));
  if (stat && state.inodes.has(inodeKey(stat))) throw refused();
}

/**
 * Resolves a path a node or connection wants to use on the server (docs/security.md): relative paths are taken from
 * the first root; `..` segments and symlinks that lead outside every root are refused; `/proc`, `/dev` and `/sys`
 * are refused unless a root lies inside them; the server's own state files are refused whatever the roots.
 * Returns the real, absolute path to open (no symlinks left in it). Check again at every use: a symlink may be
 * created after a first check.
 */
export async function resolveConfinedPath(requested: string, access: FileAccess): Promise<string> {
  if (!requested || requested.includes("\0")) throw new SluiceError("invalid", "file path is empty or invalid");
  const roots = access.fileRoots;
  if (roots.length === 0) throw new SluiceError("forbidden", "no file roots are configured (--file-roots)");
  const candidate = path.resolve(roots[0]!, requested);
  if (!roots.some((r) => inside(path.resolve(r), candidate))) throw outsideRoots(requested, roots);
  const real = await realPathAllowingMissing(candidate);
  await assertConfinedRealPath(requested, real, access, undefined, candidate);
  return real;
}

const outsideRoots = (requested: string, roots: readonly string[]) =>
  new SluiceError("forbidden", `path '${requested}' is outside the allowed file roots (${roots.join(", ")})`);

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
  candidate = real,
): Promise<void> {
  const roots = access.fileRoots;
  if (roots.length === 0) throw new SluiceError("forbidden", "no file roots are configured (--file-roots)");
  if (!path.isAbsolute(real)) throw outsideRoots(requested, roots);
  const realRoots = await Promise.all(roots.map((r) => realPathAllowingMissing(path.resolve(r))));
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
  await assertNotStateFile(requested, real, access.stateFiles, opened);
}

/**
 * Where the file open as `handle` (opened by the name `real`, `opened` its stat) really is now, for the checks after
 * opening: any directory of its path may have been swapped for a symlink between resolving the path and opening it.
 * Read back from the descriptor (`/proc/self/fd/N`) on Linux; elsewhere the real path of the name, trusted only if
 * it is the file that is open (same device + inode).
 */
export async function openedRealPath(
  requested: string,
  handle: FileHandle,
  real: string,
  opened: Stats,
): Promise<string> {
  if (process.platform === "linux") {
    const fromDescriptor = await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (fromDescriptor !== null) return fromDescriptor;
  }
  const now = await fs.realpath(real);
  const found = await fs.stat(now);
  if (found.dev !== opened.dev || found.ino !== opened.ino)
    throw new SluiceError("forbidden", `path '${requested}' changed while it was being opened`);
  return now;
}
