// `--help` for every script in bench/: prints the running script's opening comment (what it measures, how to run
// it and its options) and, where the script has them, its options' defaults; then exits. Nothing is measured.
import fs from "node:fs";

/** Answers `--help` (or `-h`) among `argv` and exits; otherwise returns. */
export function answerHelp(argv = process.argv.slice(2), defaults = undefined) {
  if (!argv.includes("--help") && !argv.includes("-h")) return;
  const lines = fs.readFileSync(process.argv[1], "utf8").split("\n");
  const comment = lines.slice(
    0,
    lines.findIndex((l) => !l.startsWith("//")),
  );
  console.log(comment.map((l) => l.replace(/^\/\/ ?/, "")).join("\n"));
  if (defaults) console.log(`\noptions and defaults: ${JSON.stringify(defaults)}`);
  process.exit(0);
}
