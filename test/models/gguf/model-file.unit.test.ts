import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseModelName } from "../../../src/config/model-name.js";
import { createModel } from "../../../src/models/factory/create-model.js";
import { ggufFileProblem, runtimeProblem } from "../../../src/models/gguf/model-file.js";
import { samplingOf } from "../../../src/models/gguf/sampling.js";
import { packageRoot } from "../../../src/package-root.js";
import { writeTinyModel } from "../../../src/testing/gguf-tiny-model.js";
import { modelConfig } from "../helpers.js";

const dir = mkdtempSync(join(tmpdir(), "patchloop-gguf-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("gguf: model names and files", () => {
  it("reads gguf:PATH as a file of the embedded runtime", () => {
    expect(parseModelName("gguf:/models/qwen3-8b-q4_k_m.gguf")).toEqual({
      provider: "gguf",
      path: "/models/qwen3-8b-q4_k_m.gguf",
    });
  });

  it("says what is wrong with the file, where, and what to do", () => {
    const hint = "pass -m gguf:PATH with the path of a .gguf model file";
    const missing = join(dir, "none.gguf");
    expect(ggufFileProblem(missing)).toBe(`the GGUF model file ${missing} does not exist; ${hint}`);
    expect(ggufFileProblem(dir)).toBe(`the GGUF model ${dir} is not a file; ${hint}`);
    expect(ggufFileProblem("")).toBe(`model.model_name "gguf:" names no file; ${hint}`);
    const text = join(dir, "model.gguf");
    writeFileSync(text, "<html>not found</html>");
    expect(ggufFileProblem(text)).toBe(
      `${text} is not a GGUF model file (it does not start with "GGUF": "<htm"); ${hint}`,
    );
    // a whole model passes; a damaged one is refused by gguf-check.ts (test/models/gguf-check.unit.test.ts)
    expect(ggufFileProblem(writeTinyModel(dir))).toBeNull();
  });

  it("makes createModel throw that one error for a bad file", () => {
    const missing = join(dir, "none.gguf");
    expect(() => createModel(modelConfig({ model_name: `gguf:${missing}` }))).toThrow(
      `the GGUF model file ${missing} does not exist`,
    );
  });

  it("names the package to install when node-llama-cpp is missing", () => {
    const missing = () => {
      throw new Error("Cannot find module 'node-llama-cpp'");
    };
    expect(runtimeProblem(missing)).toBe(
      `the embedded GGUF runtime needs the optional package node-llama-cpp, which is not installed in ${packageRoot()}; install it there with \`npm install --save-exact node-llama-cpp@3.21.1\` (it is an optional peer dependency: the CUDA and Vulkan builds it brings take ~700 MB)`,
    );
    expect(runtimeProblem(() => "/x/node_modules/node-llama-cpp/dist/index.js")).toBeNull();
  });
});

describe("the model_kwargs the embedded runtime reads", () => {
  it("maps sampling keys and the chat template's variables", () => {
    expect(
      samplingOf({
        temperature: 0.3,
        top_p: 0.9,
        top_k: 20,
        min_p: 0,
        seed: 4,
        max_tokens: 512,
        chat_template_kwargs: { enable_thinking: false },
      }),
    ).toEqual({
      temperature: 0.3,
      topP: 0.9,
      topK: 20,
      minP: 0,
      seed: 4,
      maxTokens: 512,
      templateKwargs: { enable_thinking: false },
    });
  });

  it("refuses a key it cannot use, and bad values, naming them", () => {
    expect(() => samplingOf({ stop: ["x"] })).toThrow(
      "model.model_kwargs.stop is not read by the embedded GGUF runtime (there is no server to send it to); it reads temperature, top_p, top_k, min_p, seed, max_tokens, chat_template_kwargs",
    );
    expect(() => samplingOf({ temperature: "hot" })).toThrow(
      'model.model_kwargs.temperature must be a number of at least 0; received "hot"',
    );
    expect(() => samplingOf({ max_tokens: 1.5 })).toThrow(
      "model.model_kwargs.max_tokens must be a whole number; received 1.5",
    );
    expect(() => samplingOf({ chat_template_kwargs: [1] })).toThrow(
      "model.model_kwargs.chat_template_kwargs must be a mapping; received [1]",
    );
  });
});
