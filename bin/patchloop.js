#!/usr/bin/env node
import("../dist/bundle/main.js").then((m) => m.main(process.argv)).catch((err) => {
  if (err && err.code === "ERR_MODULE_NOT_FOUND" && String(err.message).includes("dist")) {
    console.error("patchloop is not built yet: run `npm run build` first.");
  } else {
    console.error(err);
  }
  process.exit(2);
});
