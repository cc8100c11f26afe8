import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { permissionReference } from "../src/openapi/permission-reference.js";

const DOC = new URL("../../../docs/auth.md", import.meta.url);
const BLOCK = /<!-- generated: permissions -->\n[\s\S]*?<!-- end generated -->/;

describe("docs/auth.md", () => {
  it("carries the route permission table generated from the operation table (npm run docs rewrites it)", () => {
    const doc = fs.readFileSync(DOC, "utf8");
    const block = `<!-- generated: permissions -->\n${permissionReference()}\n<!-- end generated -->`;
    if (process.env.SLUICE_UPDATE_DOCS === "1") fs.writeFileSync(DOC, doc.replace(BLOCK, block));
    expect(fs.readFileSync(DOC, "utf8")).toContain(block);
  });
});
