import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { packageRoot } from "../package-root.js";

/**
 * Packages a part of patchloop needs that are not installed: the tokenizers are optional peer
 * dependencies (an install of patchloop leaves out their ~140 MB unless asked for; a checkout's
 * `npm ci` has them as development dependencies). The message names them, how to install them,
 * and what works without them.
 */
export class MissingPackagesError extends Error {
  constructor(
    readonly what: string,
    readonly packages: string[],
    instead: string,
  ) {
    const root = packageRoot();
    const versions = optionalVersions(root);
    const specs = packages.map((p) => (versions[p] ? `${p}@${versions[p]}` : p));
    super(
      `${what} needs ${packages.join(" and ")}, not installed (optional: an install of patchloop leaves ` +
        `them out): install with \`npm install --no-save ${specs.join(" ")}\` ` +
        `in ${root}, or ${instead}`,
    );
    this.name = "MissingPackagesError";
  }
}

function optionalVersions(root: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    peerDependencies?: Record<string, string>;
  };
  return pkg.peerDependencies ?? {};
}

const resolveHere = createRequire(import.meta.url).resolve;

/**
 * Throws {@link MissingPackagesError} naming each of `packages` that does not resolve from
 * patchloop's own files; returns when all do. `instead` says what works without them.
 */
export function requirePackages(what: string, packages: string[], instead: string): void {
  const missing = packages.filter((p) => {
    try {
      resolveHere(p);
      return false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") return true;
      throw err;
    }
  });
  if (missing.length > 0) throw new MissingPackagesError(what, missing, instead);
}

/**
 * `import(specifier)` of an optional package, typed by the caller: the specifier is a plain string
 * so that type-checking and bundling need not find the package (it stays external, loaded from
 * node_modules at run time). Call {@link requirePackages} first for a clear error.
 */
export function importOptional<T>(specifier: string): Promise<T> {
  return import(/* @vite-ignore */ specifier) as Promise<T>;
}
