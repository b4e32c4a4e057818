import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLocalizeCommand } from "../../src/cli/localize.js";
import { repoAnalyses } from "../../src/localize/repo-analyses.js";
import { makeRepo } from "../support/git-repo.js";
import { tempDir } from "../support/tmp.js";
import { py } from "./support.js";

describe("patchloop localize keeps a repository's analyses only while rows of it are to come", () => {
  it("drops each repository after its last row, and holds nothing at the end", async () => {
    const dir = tempDir();
    const shop = makeRepo(join(dir, "acme__shop"), {
      "shop/__init__.py": "",
      "shop/invoice.py": py("def invoice_total(lines):\n    return round(sum(lines))"),
      "shop/cart.py": py("def add_to_cart(cart, item):\n    cart.append(item)"),
    });
    const mill = makeRepo(join(dir, "acme__mill"), {
      "mill/__init__.py": "",
      "mill/grind.py": py("def grind_grain(grain):\n    return grain * 2"),
    });
    const row = (repo: string, n: number, base_commit: string, problem_statement: string) => ({
      repo,
      instance_id: `${repo.replace("/", "__")}-${n}`,
      base_commit,
      problem_statement,
    });
    const rows = join(tempDir(), "rows.jsonl");
    writeFileSync(
      rows,
      `${[
        row("acme/shop", 1, shop, "`invoice_total` drops the cents"),
        row("acme/shop", 2, shop, "`add_to_cart` adds twice"),
        row("acme/mill", 1, mill, "`grind_grain` grinds too fine"),
        row("acme/shop", 3, shop, "`invoice_total` rounds down"),
      ]
        .map((r) => JSON.stringify(r))
        .join("\n")}\n`,
    );
    const out = join(tempDir(), "loc.jsonl");
    // what is held after each row, seen from the progress line the command prints after it
    const held: string[] = [];
    const code = await runLocalizeCommand(
      { config: [], subset: rows, split: "test", instanceIds: [], reposDir: dir, top: "1", output: out },
      (line) => {
        if (line.startsWith("["))
          held.push(
            repoAnalyses()
              .held()
              .map((h) => `${h.repo} ${h.pending} pending, ${h.files} files`)
              .join("; "),
          );
      },
    );
    expect(code).toBe(0);
    expect(held).toEqual([
      "acme/shop 2 pending, 3 files; acme/mill 1 pending, 0 files",
      "acme/shop 1 pending, 3 files; acme/mill 1 pending, 0 files",
      "acme/shop 1 pending, 3 files",
      "",
    ]);
    expect(
      readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).files[0].path),
    ).toEqual(["shop/invoice.py", "shop/cart.py", "mill/grind.py", "shop/invoice.py"]);
    expect(repoAnalyses().held()).toEqual([]);
  });
});
