#!/bin/sh
':' //; exec node --max-semi-space-size=2 --no-sparkplug --interrupt-budget=4000000 "$0" "$@"
// Run as a program (the `patchloop` command, ./bin/patchloop.js), the line above is sh: it starts
// node with flags for a process that mostly waits on a model server and on commands (issue 45,
// docs/architecture.md, "Cost"):
// - --max-semi-space-size=2: V8's young generation held to 2 MB per semi-space. By default it
//   grows to 16 MB while a long run keeps objects alive, and the process's memory follows.
// - --no-sparkplug --interrupt-budget=4000000: code that runs a little stays in V8's interpreter;
//   only code that runs a lot (a localizer's ranking loops) is optimized, and later than by
//   default. Compiled code and the compilers' own pages were 11 MB of a batch's 72 MB, at the
//   same CPU; a whole-run interpreter (--no-opt) would halve the localizer's speed.
// Run as `node bin/patchloop.js`, the line is a string and a comment, and node's own defaults apply.
import("../dist/bundle/main.js").then((m) => m.main(process.argv)).catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist")) {
    console.error("patchloop is not built yet: run `npm run build` first.");
  } else {
    console.error(err);
  }
  process.exit(2);
});
