// Deliberately empty: node-llama-cpp asks a build package for getBinsDir(); without it, it takes the
// package as absent and falls back to the next build (the CPU one). See package.json and docs/models.md.
export {};
