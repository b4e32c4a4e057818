// Types of scripts/build-dist.mjs (plain JavaScript: start.sh runs it before anything is built).
export declare const STAMP_NAME: string;
export interface BuildOptions {
  /** Keep going when tsc reports type errors (it still emits). */
  allowTypeErrors?: boolean;
  /** Where such warnings go (default: stderr). */
  warn?: (text: string) => void;
}
export declare function inputHashes(root: string): Record<string, string>;
export declare function outputsHash(dir: string): string;
export declare function distState(root: string): { fresh: true } | { fresh: false; reason: string };
export declare function buildDist(root: string, options?: BuildOptions): void;
export declare function ensureDist(
  root: string,
  options?: BuildOptions,
): { built: false } | { built: true; reason: string };
