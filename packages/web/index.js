import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The directory holding the built UI (index.html and assets/). */
export const webRoot = fileURLToPath(new URL("./dist/", import.meta.url));

/** Whether the UI has been built (`npm run build -w @sluice/web`). */
export function webBuilt() {
  return existsSync(new URL("./dist/index.html", import.meta.url));
}
