// A seeded world in which pi's own code writes the same bytes on every run:
// pi's random ids (crypto.randomUUID, crypto.getRandomValues) come from a
// seeded generator (mulberry32) and its clock (Date, Date.now) stands still
// until the caller moves it. Then pi's SessionManager is loaded from its
// reference package (PI_REF_DIR, default target/pi-reference).
//
// usage: const { SessionManager, RealDate, setClock, wait } =
//          await seededPi({ seed: 1212, start: Date.UTC(...), repo });
//        (also `hex(n)`: more seeded bytes, from the same generator)
import { existsSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export async function seededPi({ seed, start, repo }) {
  function byte() {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) & 0xff;
  }
  const hex = (n) => Array.from({ length: n }, () => byte().toString(16).padStart(2, "0")).join("");
  const require = createRequire(import.meta.url);
  const nodeCrypto = require("node:crypto");
  nodeCrypto.randomUUID = () => {
    const h = hex(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  };
  syncBuiltinESMExports();
  Object.defineProperty(globalThis.crypto, "getRandomValues", {
    configurable: true,
    value: (array) => {
      for (let i = 0; i < array.length; i++) array[i] = byte();
      return array;
    },
  });

  const RealDate = Date;
  let now = start;
  class FakeDate extends RealDate {
    constructor(...a) {
      if (a.length === 0) super(now);
      else super(...a);
    }
    static now() {
      return now;
    }
  }
  globalThis.Date = FakeDate;

  const piDir = resolve(process.env.PI_REF_DIR ?? join(repo, "target/pi-reference"), "node_modules/@earendil-works/pi-coding-agent");
  const smFile = join(piDir, "dist/core/session-manager.js");
  if (!existsSync(smFile)) {
    console.error(`pi's reference package is not at ${piDir}: run tests/pi/install.sh (or scripts/test)`);
    process.exit(3);
  }
  const { SessionManager } = await import(pathToFileURL(smFile).href);
  return {
    SessionManager,
    RealDate,
    /** `n` seeded random bytes as hex (ids of pi's kind). */
    hex,
    /** Sets the clock to `ms`. */
    setClock: (ms) => (now = ms),
    /** Lets `s` seconds pass. */
    wait: (s) => (now += Math.round(s * 1000)),
  };
}
