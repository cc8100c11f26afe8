import fs from "node:fs/promises";
import path from "node:path";
import { SluiceError } from "../errors.js";

const inside = (root: string, target: string) => {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
};

/** Real path of `p`, or of its deepest existing ancestor joined with the rest (for files about to be created). */
async function realPathAllowingMissing(p: string): Promise<string> {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return path.join(real, ...missing.reverse());
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      const parent = path.dirname(current);
      if (parent === current) return p;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolves a node's file path inside the allowed roots (DESIGN.md §5): relative paths are taken from the first
 * root; `..` segments and symlinks that lead outside every root are refused with a clear error. Returns the real,
 * absolute path to open.
 */
export async function resolveConfinedPath(requested: string, roots: readonly string[]): Promise<string> {
  if (!requested || requested.includes("\0")) throw new SluiceError("invalid", "file path is empty or invalid");
  if (roots.length === 0) throw new SluiceError("forbidden", "no file roots are configured (--file-roots)");
  const candidate = path.resolve(roots[0]!, requested);
  const realRoots = await Promise.all(roots.map((r) => realPathAllowingMissing(path.resolve(r))));
  if (!roots.some((r) => inside(path.resolve(r), candidate))) {
    throw new SluiceError("forbidden", `path '${requested}' is outside the allowed file roots (${roots.join(", ")})`);
  }
  const real = await realPathAllowingMissing(candidate);
  if (!realRoots.some((r) => inside(r, real))) {
    throw new SluiceError("forbidden", `path '${requested}' leads outside the allowed file roots through a symbolic link`);
  }
  return real;
}
