// Parses each file named on the command line with the official Mermaid
// parser; prints `ok TYPE` or the parse error per file. Exits 1 if any
// file does not parse. The configuration a diagram set for itself (a
// `%%{init: ...}%%` directive or front matter) follows as JSON. Run by tests/it/views.rs from target/mermaid.
import { readFileSync } from "node:fs";
import mermaid from "mermaid";

let failed = false;
for (const path of process.argv.slice(2)) {
  const text = readFileSync(path, "utf8");
  try {
    const result = await mermaid.parse(text);
    console.log(`ok ${result.diagramType} ${path} config ${JSON.stringify(result.config ?? {})}`);
  } catch (e) {
    failed = true;
    console.log(`error ${path}: ${String(e.message ?? e).split("\n").slice(0, 4).join(" | ")}`);
  }
}
process.exit(failed ? 1 : 0);
