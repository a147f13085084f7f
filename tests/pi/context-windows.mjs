// Prints the context window of every chat model pi's package knows, as
// the table piscope keeps in src/render/context_windows.tsv (provider,
// model id and window in tokens, tab-separated, sorted): the preview's
// header gives the context's share of its model's window, as pi's footer
// does. Regenerate with
//   node tests/pi/context-windows.mjs > src/render/context_windows.tsv
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { referenceDir } from "./reference.mjs";

const data = join(referenceDir(), "node_modules/@earendil-works/pi-ai/dist/providers/data");
const rows = new Set();
for (const file of readdirSync(data).filter((f) => f.endsWith(".json"))) {
  const byApi = JSON.parse(readFileSync(join(data, file), "utf8"));
  for (const models of Object.values(byApi)) {
    for (const [key, m] of Object.entries(models)) {
      if (!key.startsWith("chat:") || typeof m?.contextWindow !== "number" || m.contextWindow <= 0) continue;
      if (typeof m.provider !== "string" || typeof m.id !== "string") continue;
      if (/[\t\n]/.test(m.provider + m.id)) continue;
      rows.add(`${m.provider}\t${m.id}\t${m.contextWindow}`);
    }
  }
}
const sorted = [...rows].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
process.stdout.write(`# provider\tmodel\tcontext window (tokens), from pi's package: tests/pi/context-windows.mjs\n${sorted.join("\n")}\n`);
