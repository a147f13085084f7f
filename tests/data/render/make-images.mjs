// Writes tests/data/render/images.jsonl with pi's own SessionManager: a session
// whose messages hold images of every sort the preview meets: real PNGs (a
// user's screenshot, an image a tool returned), data that is no image,
// data that is not base64, a type it does not draw (SVG), and a type and
// text full of terminal escape sequences.
//
// The PNGs are made here, pixel by pixel, so a test knows what colour each
// part of the picture is: SHOT is 160x80, its left half red (#ff0000) and
// its right half blue (#0000ff); TILE is 40x40, green (#00ff00).
//
// usage: node tests/data/render/make-images.mjs   (PI_REF_DIR: pi's reference
//        package, default target/pi-reference). The clock and ids are
//        fixed, so a run writes the same bytes every time.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync, readdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { seededPi } from "../../../scripts/seeded-pi.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const OUT = join(repo, "tests/data/render/images.jsonl");

const { SessionManager, wait } = await seededPi({
  seed: 1212,
  start: Date.UTC(2026, 11, 1, 10, 0, 0),
  repo,
});

// --- PNGs, made by hand ----------------------------------------------------

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** An RGB PNG of `w` x `h` whose pixel (x, y) is `colour(x, y)` = [r, g, b]. */
function png(w, h, colour) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.alloc(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) {
    const row = y * (1 + 3 * w);
    raw[row] = 0; // no filter
    for (let x = 0; x < w; x++) {
      const [r, g, b] = colour(x, y);
      raw[row + 1 + 3 * x] = r;
      raw[row + 2 + 3 * x] = g;
      raw[row + 3 + 3 * x] = b;
    }
  }
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]).toString("base64");
}
const SHOT = png(160, 80, (x) => (x < 80 ? [255, 0, 0] : [0, 0, 255]));
const TILE = png(40, 40, () => [0, 255, 0]);
const NOT_AN_IMAGE = Buffer.from("this is text, not a picture at all!!").toString("base64");
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString("base64");
const ESC = "\u001b";

// --- The session -----------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), "piscope-images-"));
const sm = SessionManager.create("/home/ada/shop", dir);
sm.appendModelChange("anthropic", "claude-sonnet-4-5");
const user = (text, images) => {
  wait(30);
  return sm.appendMessage({ role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() });
};
const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const say = (content, stopReason = "stop") => {
  wait(5);
  return sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason, timestamp: Date.now() });
};

user("The screenshot of the bug:", [{ type: "image", data: SHOT, mimeType: "image/png" }]);
say([{ type: "text", text: "Red on the left, blue on the right. Let me look at the tile too." }, { type: "toolCall", id: "toolu_read_tile", name: "read", arguments: { path: "assets/tile.png" } }], "toolUse");
wait(1);
sm.appendMessage({
  role: "toolResult",
  toolCallId: "toolu_read_tile",
  toolName: "read",
  content: [{ type: "text", text: "Read image file [image/png]" }, { type: "image", data: TILE, mimeType: "image/png" }],
  isError: false,
  timestamp: Date.now(),
});
say([{ type: "text", text: "The tile is plain green." }]);
user("This one is broken:", [{ type: "image", data: NOT_AN_IMAGE, mimeType: "image/png" }]);
user("And this one is a drawing:", [{ type: "image", data: SVG, mimeType: "image/svg+xml" }]);
user("This one lost its padding:", [{ type: "image", data: SHOT.slice(0, -3), mimeType: "image/png" }]);
user(`Hostile ${ESC}[2J${ESC}]0;owned${ESC}\\ text ${ESC}]52;c;aGk=\u0007 here:`, [{ type: "image", data: SHOT, mimeType: `image/png${ESC}[31m` }]);
say([{ type: "text", text: "The last word." }]);

const [file] = readdirSync(dir);
renameSync(join(dir, file), OUT);
rmSync(dir, { recursive: true });
console.log(`wrote ${OUT} (${readFileSync(OUT).length} bytes)`);
