#!/bin/sh
':' //; exec node --max-semi-space-size=2 "$0" "$@"
// Run as a program (the `patchloop` command, ./bin/patchloop.js), the line above is sh: it starts
// node with V8's young generation held to 2 MB per semi-space. By default V8 grows it to 16 MB
// while a long run keeps objects alive, and the process's memory follows (issue 45: the largest
// process of a batch held 83 MB, 73 MB with this, at the same CPU; docs/architecture.md,
// "Cost"). Run as `node bin/patchloop.js`, the line is a string and a comment, and node's own
// defaults apply.
import("../dist/bundle/main.js").then((m) => m.main(process.argv)).catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist")) {
    console.error("patchloop is not built yet: run `npm run build` first.");
  } else {
    console.error(err);
  }
  process.exit(2);
});
