// Regenerates the golden answers that `cargo test` compares piscope with:
// what pi's own code (the reference oracle) prints for each input file.
// Inputs: the real sessions in tests/data/pi-mono/ and a small corpus
// written by pi's SessionManager into tests/data/golden/corpus/.
//
// usage (from the repository root, after tests/pi/install.sh; PI_REF_DIR
// names another install than target/pi-reference):
//   node tests/data/golden/regenerate.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const root = process.cwd();
const harness = join(root, "tests/pi");
const golden = join(root, "tests/data/golden");
const corpus = join(golden, "corpus");
const expected = join(golden, "expected");

rmSync(corpus, { recursive: true, force: true });
rmSync(expected, { recursive: true, force: true });
mkdirSync(expected, { recursive: true });
execFileSync(process.execPath, [join(harness, "gen-corpus.mjs"), "--out", corpus, "--seed", "20261130", "--sessions", "10", "--turns", "24"], {
  stdio: "inherit",
});

const inputs = [];
const walk = (d) => {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith(".jsonl")) inputs.push(p);
  }
};
walk(corpus);
walk(join(root, "tests/data/pi-mono"));

const oracle = (...args) => JSON.parse(execFileSync(process.execPath, [join(harness, "oracle.mjs"), ...args], { maxBuffer: 1 << 30 }));
let n = 0;
for (const file of inputs) {
  const name = basename(file, ".jsonl");
  const tree = oracle("tree", file);
  const answers = {
    tree,
    info: oracle("info", file),
    context: oracle("context", file),
    "context-null": oracle("context", file, "--leaf", "null"),
  };
  // Two fixed inner leaves (legacy files get random ids from pi: skipped).
  const legacy = (JSON.parse(readFileSync(file, "utf8").split("\n", 1)[0]).version ?? 1) < 3;
  if (!legacy && tree.length > 2) {
    for (const k of [Math.floor(tree.length / 3), Math.floor((2 * tree.length) / 3)]) {
      answers[`context-at-${tree[k].id}`] = oracle("context", file, "--leaf", tree[k].id);
    }
  }
  for (const [what, value] of Object.entries(answers)) {
    writeFileSync(join(expected, `${name}.${what}.json`), `${JSON.stringify(value)}\n`);
    n++;
  }
}
console.log(`wrote ${n} golden answers for ${inputs.length} files`);
