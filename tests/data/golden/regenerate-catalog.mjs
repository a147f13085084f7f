// Regenerates the catalog's golden answers: what pi's own session list and
// /resume search (the reference oracle) print for the golden corpus (pi's
// per-project layout) and for tests/data/catalog-flat/ (a custom flat folder).
// Paths are stored relative to the repository, as "$REPO/...".
//
// usage (from the repository root, after tests/pi/install.sh; PI_REF_DIR
// names another install than target/pi-reference):
//   python3 tests/data/make_catalog_flat.py     (only when the flat cases change)
//   node tests/data/golden/regenerate-catalog.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.cwd();
const harness = join(root, "tests/pi");
const out = join(root, "tests/data/golden/catalog");
mkdirSync(out, { recursive: true });
const rel = (v) => JSON.parse(JSON.stringify(v).split(root).join("$REPO"));
const oracle = (...args) =>
  JSON.parse(execFileSync(process.execPath, [join(harness, "oracle.mjs"), ...args], { maxBuffer: 1 << 30 }));

// Queries exercise every part of the language: words, phrases, regexes,
// fuzzy names and folders, unicode, unbalanced quotes, nothing found.
export const QUERIES = [
  "parser",
  "tree session",
  "TREE",
  '"fix bug"',
  '"plain   text"',
  "re:bug\\s+fix",
  "re:^watch",
  "re:(",
  "re:",
  "wbshp",
  "cmplr tree",
  "ünïcødé",
  "项目",
  "ansi",
  "019b",
  "notes label",
  '"unclosed quote',
  "zzzz-nothing-matches",
  "re:[0-9]{3}",
  "e2",
  "parser please",
];

const roots = {
  corpus: join(root, "tests/data/golden/corpus/sessions"),
  flat: join(root, "tests/data/catalog-flat"),
};
writeFileSync(join(out, "list-root.json"), `${JSON.stringify(rel(oracle("list-root", roots.corpus)))}\n`);
writeFileSync(join(out, "list-flat.json"), `${JSON.stringify(rel(oracle("list", roots.flat)))}\n`);
const searches = [];
for (const [where, dir] of Object.entries(roots)) {
  for (const query of QUERIES) {
    for (const sort of ["recent", "relevance"]) {
      for (const named of [false, true]) {
        const args = ["search", dir, query, "--sort", sort, ...(named ? ["--named"] : [])];
        searches.push({ where, query, sort, named, paths: rel(oracle(...args)) });
      }
    }
  }
}
writeFileSync(join(out, "search.json"), `${JSON.stringify(searches, null, 1)}\n`);
console.log(`wrote ${searches.length} searches and 2 lists`);
