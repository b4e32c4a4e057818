import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { packageRoot } from "../../package-root.js";
import { ggufStructureProblem } from "./gguf-check.js";

/** The version of node-llama-cpp that package.json names (an optional peer dependency, a dev dependency for the tests). */
export const RUNTIME_PACKAGE = "node-llama-cpp@3.21.1";

/** What to do about a damaged file, after what is wrong with it. */
const DAMAGED =
  "it is damaged or not a whole GGUF model: download it again and compare its sha256 with the model page's (docs/models.md)";

/**
 * What is wrong with `path` as a GGUF model file, or null: it must be a readable regular file that
 * starts with the GGUF magic bytes, and its header, metadata, tensor table and data must hold
 * together (gguf-check.ts). Checked before node-llama-cpp sees the file, so that a wrong path or a
 * damaged file is one line naming the file and what is wrong, never a hang or a crash in the loader.
 */
export function ggufFileProblem(path: string): string | null {
  const hint = "pass -m gguf:PATH with the path of a .gguf model file";
  if (path.trim() === "") return `model.model_name "gguf:" names no file; ${hint}`;
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) return `the GGUF model ${path} is not a file; ${hint}`;
    size = st.size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? `the GGUF model file ${path} does not exist; ${hint}`
      : `the GGUF model file ${path} cannot be read (${code ?? String(e)}); ${hint}`;
  }
  const head = Buffer.alloc(4);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    readSync(fd, head, 0, 4, 0);
    if (size < 4 || head.toString("latin1") !== "GGUF")
      return `${path} is not a GGUF model file (it does not start with "GGUF": ${JSON.stringify(head.subarray(0, Math.min(size, 4)).toString("latin1"))}); ${hint}`;
    const problem = ggufStructureProblem(fd, size);
    return problem === null ? null : `${path}: ${problem}; ${DAMAGED}`;
  } catch (e) {
    return `the GGUF model file ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); ${hint}`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Why the embedded runtime cannot load here (node-llama-cpp not installed), or null. */
export function runtimeProblem(
  resolve: (id: string) => string = createRequire(import.meta.url).resolve,
): string | null {
  try {
    resolve("node-llama-cpp");
    return null;
  } catch {
    return `the embedded GGUF runtime needs the optional package node-llama-cpp, which is not installed in ${packageRoot()}; install it there with \`npm install --save-exact ${RUNTIME_PACKAGE}\` (it is an optional peer dependency: the CUDA and Vulkan builds it brings take ~700 MB)`;
  }
}
