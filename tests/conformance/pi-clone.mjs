// Clones a session as pi's /clone does: pi's own SessionManager.forkFrom
// copies every entry (same ids and times) into a new file for TARGET_CWD.
//
// usage: node pi-clone.mjs SRC TARGET_CWD SESSION_DIR    prints the new file
import { join } from "node:path";

const ref = process.env.PI_REF_DIR;
if (!ref) throw new Error("PI_REF_DIR is not set");
const { SessionManager } = await import(join(ref, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"));

const [src, cwd, dir] = process.argv.slice(2);
const sm = SessionManager.forkFrom(src, cwd, dir);
console.log(sm.getSessionFile());
