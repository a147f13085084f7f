// Finds pi's published package (the reference implementation of the session
// format) where tests/pi/install.sh put it, and loads its modules by file
// path: the package's own entry point starts the whole agent, and the tests
// need only its session code.
//
// Where: PI_REF_DIR (relative to the current folder), else the repository's
// target/pi-reference.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PI_PACKAGE = "@earendil-works/pi-coding-agent";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The folder install.sh installs into (it holds node_modules/). */
export function referenceDir() {
  const fromEnv = process.env.PI_REF_DIR;
  return fromEnv ? resolve(fromEnv) : join(repo, "target/pi-reference");
}

/** The package's own folder (its package.json, dist/, docs/). */
export function packageDir() {
  return join(referenceDir(), "node_modules", PI_PACKAGE);
}

/** Imports `dist/...` of pi's package; exits 3 with what to run when it is not installed. */
export async function loadPi(relPath) {
  const file = join(packageDir(), relPath);
  if (!existsSync(file)) {
    process.stderr.write(
      `pi's package is not installed in ${referenceDir()} (no ${relPath}): run tests/pi/install.sh, or scripts/test\n`,
    );
    process.exit(3);
  }
  return import(pathToFileURL(file).href);
}

/** pi's session module: SessionManager, buildSessionContext, loadEntriesFromFile, ... */
export function sessionModule() {
  return loadPi("dist/core/session-manager.js");
}
