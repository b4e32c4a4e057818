import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { pageHtml, pageScript } from "../../src/inspect/assets/page.js";

const CLIENT = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/inspect/client");
const sources = readdirSync(CLIENT)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => [f, readFileSync(join(CLIENT, f), "utf8")] as const);

test("every function in src/inspect/client/ is part of the page script", () => {
  const script = pageScript();
  const names = sources.flatMap(([, text]) =>
    [...text.matchAll(/^(?:export )?(?:async )?function (\w+)/gm)].map((m) => m[1]),
  );
  expect(names.length).toBeGreaterThan(20);
  for (const name of names) expect(script, name).toMatch(new RegExp(`(async )?function ${name}\\(`));
  expect(script.trimEnd().endsWith("void plMain();\n})();")).toBe(true);
});

test("client modules hold no module-level values (the page script only carries functions)", () => {
  for (const [file, text] of sources) {
    expect(text.match(/^(?:export )?(?:const|let|var|class) /gm), file).toBeNull();
  }
});

test("the HTML shell escapes the folder name and loads only /app.js", () => {
  const html = pageHtml(`run <script>alert(1)</script> "x"`);
  expect(html).toContain("run &#60;script&#62;alert(1)&#60;/script&#62; &#34;x&#34;");
  expect(html).not.toContain("<script>alert");
  expect(html.match(/<script/g)).toEqual(["<script"]);
});
