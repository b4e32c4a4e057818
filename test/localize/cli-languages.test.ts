import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LocalizationLine } from "../../src/localize/types.js";
import { runPatchloop } from "../support/cli.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { RUST_REPO, TS_REPO } from "./language-repos.js";

describe("patchloop localize beyond Python", () => {
  it("the installed command reads Rust and TypeScript with their grammars (the .wasm files found from the bundle)", async () => {
    const dir = tempDir();
    const rust = makeRepo(join(dir, "acme__lexer"), RUST_REPO.files);
    const ts = makeRepo(join(dir, "acme__cache"), TS_REPO.files);
    const rows = join(tempDir(), "rows.jsonl");
    writeFileSync(
      rows,
      [
        {
          repo: "acme/lexer",
          instance_id: "acme__lexer-1",
          base_commit: rust,
          problem_statement: RUST_REPO.issue,
        },
        {
          repo: "acme/cache",
          instance_id: "acme__cache-1",
          base_commit: ts,
          problem_statement: TS_REPO.issue,
        },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const out = join(tempDir(), "loc.jsonl");
    const r = await runPatchloop(["localize", "--subset", rows, "--repos-dir", dir, "--top", "2", "-o", out]);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LocalizationLine);
    expect(lines.map((l) => [l.instance_id, l.files[0].path, l.files[0].why[0], l.error])).toEqual([
      ["acme__lexer-1", "src/lexer.rs", "defines `Lexer`, `Lexer.next_token`, named in the title", undefined],
      ["acme__cache-1", "src/cache/lru.ts", "defines `LruCache.evictOldest`, named in the title", undefined],
    ]);
    expect(lines[0].symbols.map((s) => `${s.path}:${s.name}:${s.line}`)).toEqual([
      "src/lexer.rs:Lexer:4",
      "src/lexer.rs:Lexer.next_token:23",
    ]);
  });
});
