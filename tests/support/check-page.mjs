// Opens an exported page in headless Chromium (driven by playwright-core)
// and prints, as JSON, what a reader would get: the visible text, the text
// once every fold is opened, each request the page made, whether any of the
// page's own script ran, and what the security policy blocked.
//
// usage: node check-page.mjs PAGE.html
//   CHROMIUM: the browser (default /usr/bin/chromium)
//   PLAYWRIGHT_DIR: the folder whose node_modules holds playwright-core
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const dir = process.env.PLAYWRIGHT_DIR;
if (!dir) throw new Error("PLAYWRIGHT_DIR is not set");
const require = createRequire(join(resolve(dir), "package.json"));
const { chromium } = require("playwright-core");

const page_file = resolve(process.argv[2]);
const url = pathToFileURL(page_file).href;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests = [];
  const dialogs = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("dialog", async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  // Our own probe, injected by the browser's tools (no policy applies to it):
  // it counts what the page's policy refused.
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => ({
    text: document.body.innerText,
    pwned: window.__pwned ?? null,
    scripts: document.querySelectorAll("script").length,
    handlers: [...document.querySelectorAll("*")].flatMap((el) =>
      [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${el.tagName} ${a.name}`)),
    unsafeLinks: [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href"))
      .filter((h) => !/^(https?:|mailto:|#)/i.test(h)),
    iframes: document.querySelectorAll("iframe, object, embed, frame").length,
    images: [...document.images].map((i) => ({ src: i.src.slice(0, 22), loaded: i.complete && i.naturalWidth > 0 })),
    folds: document.querySelectorAll("details").length,
    title: document.title,
  }));
  // Open every fold by clicking its summary, as a reader would (no script of
  // the page's is needed for that).
  const summaries = await page.$$("details:not([open]) > summary");
  for (const s of summaries) {
    await s.click().catch(() => {});
  }
  await page.waitForTimeout(100);
  const after = await page.evaluate(() => ({
    text: document.body.innerText,
    pwned: window.__pwned ?? null,
    violations: window.__violations,
  }));
  console.log(JSON.stringify({ url, requests, dialogs, before, after }));
} finally {
  await browser.close();
}
