#!/bin/sh
':' //; exec node --max-semi-space-size=2 --no-sparkplug "$0" "$@"
// Run as a program (the `patchloop` command, ./bin/patchloop.js), the line above is sh: it starts
// node with flags for a process that mostly waits on a model server and on commands (issue 45,
// docs/architecture.md, "Cost"):
// - --max-semi-space-size=2: V8's young generation held to 2 MB per semi-space. By default it
//   grows to 16 MB while a long run keeps objects alive, and the process's memory follows.
// - --no-sparkplug, and on Node 20 a late optimizer (below): code that runs a little stays in V8's
//   interpreter; only code that runs a lot (a localizer's ranking loops) is optimized. A batch's
//   process held 61 MB instead of 72 (compiled code and the compilers' own pages), at the same CPU;
//   a whole-run interpreter (--no-opt) would halve the localizer's speed.
// Both flags are known to every Node from 20 on. The optimizer's budget is a flag of Node 20's V8
// only (later ones count calls instead, and node stops at a V8 flag it does not know), so it is set
// here, for Node 20, before the bundle is loaded; so is the end of optimizing a small function at
// its first count, which node's own start-up has already begun for a few. Run as
// `node bin/patchloop.js`, the first line is a string and a comment, and node's own defaults apply.
if (process.execArgv.includes("--no-sparkplug") && process.versions.node.split(".")[0] === "20") {
  const v8 = (await import("node:v8")).default;
  v8.setFlagsFromString("--interrupt-budget=4000000 --max-bytecode-size-for-early-opt=0");
}
import("../dist/bundle/main.js").then((m) => m.main(process.argv)).catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist")) {
    console.error("patchloop is not built yet: run `npm run build` first.");
  } else {
    console.error(err);
  }
  process.exit(2);
});
