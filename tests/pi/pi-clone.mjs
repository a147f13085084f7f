// Clones a session as pi's /clone does: pi's own SessionManager.forkFrom
// copies every entry (same ids and times) into a new file for TARGET_CWD.
//
// usage: node pi-clone.mjs SRC TARGET_CWD SESSION_DIR    prints the new file
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();

const [src, cwd, dir] = process.argv.slice(2);
const sm = SessionManager.forkFrom(src, cwd, dir);
console.log(sm.getSessionFile());
