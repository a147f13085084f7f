// pi's own /tree rows (its TreeSelectorComponent, rendered wide and tall
// enough for every row) for each file, under one of its filters.
//
// usage: node pi-tree-view.mjs FILTER FILE...   prints {"FILE": ["row", ...], ...}
// FILTER is pi's filter mode: default, no-tools, user-only, labeled-only, all.
// Rows keep pi's two-column cursor gutter and its colours; the last line
// (the position) is left out, and no rows are no lines. pi may rewrite a legacy file it opens: it
// reads a copy.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { loadPi } from "./reference.mjs";

const pi = (p) => loadPi(`dist/${p}`);
const { SessionManager } = await pi("core/session-manager.js");
const { initTheme } = await pi("modes/interactive/theme/theme.js");
const { TreeSelectorComponent } = await pi("modes/interactive/components/tree-selector.js");
initTheme("dark");

const [filter, ...files] = process.argv.slice(2);
const out = {};
for (const file of files) {
  const dir = mkdtempSync(join(tmpdir(), "pi-tree-view-"));
  try {
    const copy = join(dir, basename(file));
    copyFileSync(file, copy);
    const sm = SessionManager.open(copy, dir);
    const tree = sm.getTree();
    const noop = () => {};
    const view = new TreeSelectorComponent(tree, sm.getLeafId(), 1e7, noop, noop, noop, undefined, filter);
    const list = view.getTreeList();
    // With no rows pi writes "No entries found" where they would be.
    out[file] = list.filteredNodes.length === 0 ? [] : list.render(1e6).slice(0, -1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// The component may leave a timer behind (an empty tree cancels itself):
// exit once the output is out.
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
