/**
 * The tensor types a GGUF file may name (ggml's `ggml_type`), with the values a block of each
 * holds and its bytes: a tensor's bytes are (values / block values) x block bytes. As the llama.cpp
 * that node-llama-cpp 3.21.1 brings reports them (`getBlockSizeForGgmlType`, `getTypeSizeForGgmlType`;
 * test/models/gguf-check.unit.test.ts compares them when the package is installed). Codes of types
 * ggml removed are absent: a file that names one cannot load.
 */
export interface GgmlType {
  name: string;
  /** Values in one block. */
  block: number;
  /** Bytes of one block. */
  bytes: number;
}

const t = (name: string, block: number, bytes: number): GgmlType => ({ name, block, bytes });

const TYPES: ReadonlyMap<number, GgmlType> = new Map([
  [0, t("F32", 1, 4)],
  [1, t("F16", 1, 2)],
  [2, t("Q4_0", 32, 18)],
  [3, t("Q4_1", 32, 20)],
  [6, t("Q5_0", 32, 22)],
  [7, t("Q5_1", 32, 24)],
  [8, t("Q8_0", 32, 34)],
  [9, t("Q8_1", 32, 36)],
  [10, t("Q2_K", 256, 84)],
  [11, t("Q3_K", 256, 110)],
  [12, t("Q4_K", 256, 144)],
  [13, t("Q5_K", 256, 176)],
  [14, t("Q6_K", 256, 210)],
  [15, t("Q8_K", 256, 292)],
  [16, t("IQ2_XXS", 256, 66)],
  [17, t("IQ2_XS", 256, 74)],
  [18, t("IQ3_XXS", 256, 98)],
  [19, t("IQ1_S", 256, 50)],
  [20, t("IQ4_NL", 32, 18)],
  [21, t("IQ3_S", 256, 110)],
  [22, t("IQ2_S", 256, 82)],
  [23, t("IQ4_XS", 256, 136)],
  [24, t("I8", 1, 1)],
  [25, t("I16", 1, 2)],
  [26, t("I32", 1, 4)],
  [27, t("I64", 1, 8)],
  [28, t("F64", 1, 8)],
  [29, t("IQ1_M", 256, 56)],
  [30, t("BF16", 1, 2)],
  [34, t("TQ1_0", 256, 54)],
  [35, t("TQ2_0", 256, 66)],
  [39, t("MXFP4", 32, 17)],
  [40, t("NVFP4", 64, 36)],
  [41, t("Q1_0", 128, 18)],
  [42, t("Q2_0", 64, 18)],
]);

/** The type of code `code`, or undefined when ggml has none (or no longer has it). */
export function ggmlType(code: number): GgmlType | undefined {
  return TYPES.get(code);
}

/** Every known code (the tests compare them with the runtime's). */
export const GGML_TYPE_CODES: readonly number[] = [...TYPES.keys()];
