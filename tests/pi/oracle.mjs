// What pi's own session code makes of a session file or a sessions folder,
// printed as JSON: the answers piscope's `--json` output is held to.
//
//   node oracle.mjs context FILE [--leaf ID|null]   buildSessionContext(): {messages, thinkingLevel, model}
//   node oracle.mjs context-tokens FILE [--leaf ID]  the context's size in tokens as pi's footer
//                                                   computes it (getContextUsage(), the window left
//                                                   out): {tokens} (null: unknown after a compaction)
//   node oracle.mjs tree FILE                       getTree() flattened in pre-order:
//                                                   [{id, parentId, type, label, children: [ids]}]
//   node oracle.mjs info FILE                       {header, leafId, name, entryCount, labels, branch}
//   node oracle.mjs list DIR                        listAll(DIR): a flat folder of .jsonl files
//   node oracle.mjs list-root ROOT                  listAll() of ROOT/--<cwd>--/*.jsonl, ROOT named "sessions"
//   node oracle.mjs search ROOT QUERY [--sort recent|relevance] [--named]
//                                                   the paths the /resume picker's search keeps, in its
//                                                   order, over the sessions of ROOT (a root or a flat folder)
//   node oracle.mjs fork FILE LEAF                  createBranchedSession(LEAF) of FILE, written
//                                                   beside it: the new file's path. The one command
//                                                   that writes: give it a copy
//   node oracle.mjs batch                           one request per stdin line (a JSON array of the
//                                                   arguments above); one {"ok": ...} or {"error": ...} line each
//
// A session file is never changed (but by `fork`, which is given a copy):
// pi opens a copy in a temporary folder, since it rewrites legacy files as
// it migrates them and ends an unfinished last line. Where pi itself loops
// for ever (a parentId cycle), so does this: callers run it with a time
// limit.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { loadPi, sessionModule } from "./reference.mjs";

const session = await sessionModule();
const { filterAndSortSessions } = await loadPi("dist/modes/interactive/components/session-selector-search.js");
const { SessionManager } = session;
const compaction = await loadPi("dist/core/compaction/compaction.js");

class Usage extends Error {}

/** Runs `use(copyPath, folder)` on a throw-away copy of `file`. */
function onCopy(file, use) {
  const folder = mkdtempSync(join(tmpdir(), "pi-oracle-"));
  try {
    const copy = join(folder, basename(file));
    copyFileSync(file, copy);
    return use(copy, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The value after `--name` among `rest`, if any. */
function option(rest, name) {
  const at = rest.indexOf(`--${name}`);
  return at < 0 ? undefined : rest[at + 1];
}

/** A sessions root (`.../sessions`) lists through pi's agent folder; any other folder directly. */
async function sessionsOf(folder) {
  const root = folder.replace(/\/+$/, "");
  if (basename(root) !== "sessions") return SessionManager.listAll(root);
  process.env.PI_CODING_AGENT_DIR = dirname(root);
  return SessionManager.listAll();
}

const time = (d) => (Number.isNaN(d.getTime()) ? null : d.toISOString());

/** One row of pi's session list, in JSON's terms. */
function listed(s) {
  return {
    path: s.path,
    id: s.id,
    cwd: s.cwd,
    name: s.name ?? null,
    parentSessionPath: s.parentSessionPath ?? null,
    created: time(s.created),
    modified: time(s.modified),
    messageCount: s.messageCount,
    firstMessage: s.firstMessage,
  };
}

/** getTree()'s nested nodes as one list, parents before children, children in pi's order. */
function flatten(roots) {
  const rows = [];
  const todo = roots.slice().reverse();
  while (todo.length > 0) {
    const node = todo.pop();
    rows.push({
      id: node.entry.id,
      parentId: node.entry.parentId,
      type: node.entry.type,
      label: node.label ?? null,
      children: node.children.map((child) => child.entry.id),
    });
    for (const child of node.children.slice().reverse()) todo.push(child);
  }
  return rows;
}

const commands = {
  context(file, rest) {
    const leaf = option(rest, "leaf");
    const entries = onCopy(file, (copy) => {
      const all = session.loadEntriesFromFile(copy);
      session.migrateSessionEntries(all);
      return all.filter((e) => e.type !== "session");
    });
    return session.buildSessionContext(entries, leaf === "null" ? null : leaf);
  },
  "context-tokens"(file, rest) {
    const leaf = option(rest, "leaf");
    const entries = onCopy(file, (copy) => {
      const all = session.loadEntriesFromFile(copy);
      session.migrateSessionEntries(all);
      return all.filter((e) => e.type !== "session");
    });
    const leafId = leaf ?? undefined;
    const projection = session.buildSessionProjection(entries, leafId);
    // The branch as the session manager walks it: from the leaf (the last
    // entry unless one is named) up to the root.
    const byId = new Map(entries.map((e) => [e.id, e]));
    const branch = [];
    for (let e = leafId ? byId.get(leafId) : entries[entries.length - 1]; e; ) {
      branch.push(e);
      e = e.parentId ? byId.get(e.parentId) : undefined;
    }
    branch.reverse();
    // What agent-session's getContextUsage() does once it knows the window.
    const latest = session.getLatestCompactionEntry(branch);
    if (latest) {
      const assistants = new Set(
        projection.entries.flatMap((entry) =>
          entry.messages.some(
            (m) =>
              m.role === "assistant" &&
              m.stopReason !== "aborted" &&
              m.stopReason !== "error" &&
              compaction.calculateContextTokens(m.usage) > 0,
          )
            ? [entry.sourceEntry.id]
            : [],
        ),
      );
      const at = branch.findIndex((e) => e.id === latest.id);
      if (!branch.slice(at + 1).some((e) => assistants.has(e.id))) return { tokens: null };
    }
    return { tokens: compaction.estimateProjectedContextTokens(projection, branch).tokens };
  },
  tree(file) {
    return onCopy(file, (copy, folder) => flatten(SessionManager.open(copy, folder).getTree()));
  },
  info(file) {
    return onCopy(file, (copy, folder) => {
      const sm = SessionManager.open(copy, folder);
      const entries = sm.getEntries();
      const labels = {};
      for (const e of entries) {
        const label = sm.getLabel(e.id);
        if (label !== undefined) labels[e.id] = label;
      }
      return {
        header: sm.getHeader(),
        leafId: sm.getLeafId(),
        name: sm.getSessionName() ?? null,
        entryCount: entries.length,
        labels,
        branch: sm.getBranch().map((e) => e.id),
      };
    });
  },
  fork(file, [leaf]) {
    return SessionManager.open(file).createBranchedSession(leaf) ?? null;
  },
  async list(folder) {
    return (await SessionManager.listAll(folder)).map(listed);
  },
  async "list-root"(root) {
    if (basename(root.replace(/\/+$/, "")) !== "sessions") throw new Error("ROOT must be a folder named sessions");
    return (await sessionsOf(root)).map(listed);
  },
  async search(root, rest) {
    const [query = ""] = rest;
    const sort = option(rest, "sort") ?? "relevance";
    const names = rest.includes("--named") ? "named" : "all";
    return filterAndSortSessions(await sessionsOf(root), query, sort, names).map((s) => s.path);
  },
};

async function answer([command, target, ...rest]) {
  const run = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!run) throw new Usage(`unknown command: ${command}`);
  return run(target, rest);
}

const argv = process.argv.slice(2);
if (argv[0] === "batch") {
  // One node start for many requests: a failing request answers with its
  // error and the others go on.
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === "") continue;
    let reply;
    try {
      reply = { ok: await answer(JSON.parse(line)) };
    } catch (e) {
      reply = { error: String(e?.message ?? e) };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
} else {
  try {
    process.stdout.write(`${JSON.stringify(await answer(argv))}\n`);
  } catch (e) {
    if (e instanceof Usage) {
      process.stderr.write(
        `${e.message}\nusage: node oracle.mjs context|tree|info FILE | list DIR | list-root ROOT | search ROOT QUERY | batch\n`,
      );
      process.exit(2);
    }
    process.stderr.write(`${e?.stack ?? e}\n`);
    process.exit(1);
  }
}
