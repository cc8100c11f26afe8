/**
 * Paths an attacker hands to file nodes and SQLite connections (docs/security.md): the state files are refused
 * whatever the roots, including through hard links, dangling symlinks and other spellings.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveConfinedPath, type FileAccess } from "../../src/file-access.js";
import { confineConnection } from "../../src/connectors/registry.js";

let dir: string;
let access: FileAccess;
let key: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "sluice-access-"));
  key = path.join(dir, "sluice.db.key");
  fs.writeFileSync(key, "secret\n", { mode: 0o600 });
  // the operator made the whole data directory a root: only the state-file refusal protects the key
  access = { fileRoots: [dir], stateFiles: [path.join(dir, "sluice.db"), key, path.join(dir, ".svc-jwt-secret")] };
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const refused = /server's own state files/;

describe("state files inside a file root", () => {
  it("are refused by name, `..`, case and trailing slash; other files in the root are allowed", async () => {
    fs.mkdirSync(path.join(dir, "sub"));
    for (const p of [
      "sluice.db.key",
      "sub/../sluice.db.key",
      "SLUICE.DB.KEY",
      `${key}/`,
      ".svc-jwt-secret",
      "sluice.db",
    ]) {
      await expect(resolveConfinedPath(p, access), p).rejects.toThrow(refused);
    }
    await expect(resolveConfinedPath("data.csv", access)).resolves.toBe(path.join(fs.realpathSync(dir), "data.csv"));
  });

  it("are refused through a hard link and through a symlink, also a dangling one that would create the file", async () => {
    fs.linkSync(key, path.join(dir, "innocent.csv"));
    fs.symlinkSync(key, path.join(dir, "link.csv"));
    fs.symlinkSync(path.join(dir, ".svc-jwt-secret"), path.join(dir, "dangling.csv"));
    for (const p of ["innocent.csv", "link.csv", "dangling.csv"]) {
      await expect(resolveConfinedPath(p, access), p).rejects.toThrow(refused);
    }
  });

  it("refuses /proc and /dev even under a root of /, unless a root lies inside them", async () => {
    const everything = { ...access, fileRoots: ["/"] };
    for (const p of [`/proc/self/root${key}`, "/proc/self/environ", "/dev/fd/0", "/sys/kernel/notes"]) {
      await expect(resolveConfinedPath(p, everything), p).rejects.toThrow(/inside \/(proc|dev|sys)|state files/);
    }
    await expect(
      resolveConfinedPath(`/proc/self/cwd/${path.relative(process.cwd(), key)}`, everything),
    ).rejects.toThrow();
    await expect(resolveConfinedPath("/proc/cpuinfo", { ...access, fileRoots: ["/proc"] })).resolves.toBe(
      "/proc/cpuinfo",
    );
  });

  it("a sqlite connection is confined the same way and opens the real path; :memory: stays in memory", async () => {
    const base = { conn_id: "c", type: "sqlite" as const, port: null, schema: "", login: "", password: "", extra: {} };
    await expect(confineConnection({ ...base, host: "sluice.db" }, access)).rejects.toThrow(refused);
    await expect(confineConnection({ ...base, host: "/etc/passwd" }, access)).rejects.toThrow(
      /outside the allowed file roots/,
    );
    const ok = await confineConnection({ ...base, host: "sub/../app.db" }, access);
    expect(ok).toMatchObject({
      host: path.join(fs.realpathSync(dir), "app.db"),
      uri: path.join(fs.realpathSync(dir), "app.db"),
    });
    expect((await confineConnection({ ...base, host: ":memory:" }, access)).host).toBe(":memory:");
    const pg = { ...base, type: "postgres" as const, host: "sluice.db" };
    expect((await confineConnection(pg, access)).host).toBe("sluice.db");
  });
});
