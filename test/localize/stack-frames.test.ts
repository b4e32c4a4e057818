import { describe, expect, it } from "vitest";
import { issueSignals } from "../../src/localize/issue-signals.js";
import { localize } from "../../src/localize/localize.js";
import { JS_REPO } from "./language-repos.js";
import { snapshotOf } from "./support.js";

/** `path:line func` of each frame, outermost first, per traceback. */
const framesOf = (text: string) =>
  issueSignals(text).frames.map((f) => `${f.traceback}.${f.index} ${f.path}:${f.line} ${f.func}`);

describe("stack frames beyond Python, each traceback outermost first", () => {
  it("JavaScript and TypeScript (Node's `at` lines, with and without a function, file URLs)", () => {
    const text = [
      "TypeError: Cannot read properties of undefined (reading 'shift')",
      "    at Parser.parseTerm (/home/me/app/src/parser.js:19:30)",
      "    at async Parser.parseSum (file:///home/me/app/src/parser.js:14:21)",
      "    at /home/me/app/src/index.ts:3:1",
      "    at node:internal/main/run_main_module:28:49",
    ].join("\n");
    expect(framesOf(text)).toEqual([
      "0.0 /home/me/app/src/index.ts:3 ",
      "0.1 /home/me/app/src/parser.js:14 parseSum",
      "0.2 /home/me/app/src/parser.js:19 parseTerm",
    ]);
  });

  it("Java (the package's folders and the file), Go (the function from the line above), Rust", () => {
    const java = [
      "java.lang.NullPointerException",
      "\tat com.acme.cart.Cart.total(Cart.java:19)",
      "\tat com.acme.cart.Checkout.receipt(Checkout.java:6)",
    ].join("\n");
    expect(framesOf(java)).toEqual([
      "0.0 com/acme/cart/Checkout.java:6 receipt",
      "0.1 com/acme/cart/Cart.java:19 total",
    ]);
    const go = [
      "panic: runtime error: invalid memory address",
      "",
      "goroutine 1 [running]:",
      "example.com/shop/store.(*Store).Lookup(0x0, {0x4b2f0e, 0x1})",
      "\t/home/me/shop/store/store.go:26 +0x1d",
      "main.main()",
      "\t/home/me/shop/cmd/shop/main.go:13 +0x45",
    ].join("\n");
    expect(framesOf(go)).toEqual([
      "0.0 /home/me/shop/cmd/shop/main.go:13 main",
      "0.1 /home/me/shop/store/store.go:26 Lookup",
    ]);
    const rust = [
      "thread 'main' panicked at src/lexer.rs:24:9:",
      "index out of bounds",
      "stack backtrace:",
      "   0: demo::lexer::Lexer::next_token",
      "             at ./src/lexer.rs:24:9",
      "   1: demo::main",
      "             at ./src/main.rs:6:25",
    ].join("\n");
    expect(framesOf(rust)).toEqual([
      "0.0 ./src/main.rs:6 ",
      "0.1 ./src/lexer.rs:24 ",
      "0.2 src/lexer.rs:24 ",
    ]);
  });

  it("Ruby, PHP, and a sanitizer's C frames", () => {
    const ruby = [
      "lib/inventory/shelf.rb:13:in `restock!': undefined method `+' for nil (NoMethodError)",
      "\tfrom spec/shelf_spec.rb:5:in `block (2 levels) in <top (required)>'",
    ].join("\n");
    expect(framesOf(ruby)).toEqual([
      "0.0 spec/shelf_spec.rb:5 <top (required)>",
      "0.1 lib/inventory/shelf.rb:13 restock!",
    ]);
    const php = [
      "PHP Fatal error:  Uncaught TypeError in /app/src/Models/User.php:12",
      "Stack trace:",
      "#0 /app/src/Http/Controller.php(17): App\\Models\\User->fullName()",
      "#1 {main}",
    ].join("\n");
    expect(framesOf(php)).toEqual([
      "0.0 /app/src/Http/Controller.php:17 fullName",
      "0.1 /app/src/Models/User.php:12 ",
    ]);
    const asan = [
      "==1==ERROR: AddressSanitizer: heap-buffer-overflow",
      "    #0 0x4f5a in strbuf_grow src/strbuf.c:9:12",
      "    #1 0x4f9b in main /build/src/main.c:9:3",
    ].join("\n");
    expect(framesOf(asan)).toEqual(["0.0 /build/src/main.c:9 main", "0.1 src/strbuf.c:9 strbuf_grow"]);
  });

  it("a JavaScript stack puts the innermost frame's file first, with its function as the symbol", async () => {
    const { snapshot } = await snapshotOf(JS_REPO.files);
    const issue = [
      "Crash on empty input",
      "",
      "```",
      "TypeError: Cannot read properties of undefined",
      "    at read (/home/me/calc/src/parser.js:19:39)",
      "    at Parser.parseTerm (/home/me/calc/src/parser.js:20:19)",
      "    at parseExpression (/home/me/calc/src/parser.js:5:40)",
      "    at Object.<anonymous> (/home/me/calc/src/index.js:2:1)",
      "```",
    ].join("\n");
    const r = await localize(issue, snapshot, { topK: 3, topSymbols: 5 });
    expect(r.files[0].path).toBe("src/parser.js");
    expect(r.files[0].why).toContain("traceback: innermost frame in the repository, line 19 in read");
    // definitions the stack names (Parser, parseTerm, parseExpression) and the functions holding its
    // lines, down to the local `read` of line 19
    expect(r.symbols.map((s) => `${s.name}:${s.line}`)).toEqual([
      "Parser.parseTerm:18",
      "parseExpression:4",
      "Parser:8",
      "Parser.parseTerm.read:19",
    ]);
  });
});
