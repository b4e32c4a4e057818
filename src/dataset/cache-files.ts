import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

/**
 * The download cache on disk: `<cacheDir>/<owner>__<name>/<split>/` holds the parquet files and,
 * written last, `manifest.json` listing them. A folder without a manifest is not a cached download.
 */
interface Manifest {
  dataset: string;
  split: string;
  files: string[];
  downloaded_at: string;
}

/** The cache folder of one dataset split. */
export function cacheFolder(cacheDir: string, dataset: string, split: string): string {
  return join(cacheDir, dataset.replaceAll("/", "__"), split);
}

/** The cached files of a folder, or undefined when it holds no complete download. */
export async function cachedFiles(folder: string): Promise<string[] | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")) as Manifest;
    const files = manifest.files.map((f) => join(folder, f));
    return files.every((f) => existsSync(f)) ? files : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes one download into its cache folder. The folder is created with the first file, so a
 * download that fails before any data arrived leaves nothing behind; each file goes to a
 * temporary name and is renamed; `finish` writes the manifest. `discard` removes the files this
 * writer wrote and the folders it created (a folder that something else has filled is kept).
 */
export class CacheWriter {
  private readonly folder: string;
  private readonly written: string[] = [];
  /** Folders this writer created, deepest first. */
  private readonly created: string[] = [];
  private ready = false;

  constructor(folder: string) {
    this.folder = resolve(folder);
  }

  /** Writes `name` into the folder (creating it on first use) and returns its path. */
  async write(name: string, data: Uint8Array | string): Promise<string> {
    if (!this.ready) {
      const first = await mkdir(this.folder, { recursive: true });
      if (first !== undefined) {
        const top = resolve(first);
        for (let d = this.folder; ; d = dirname(d)) {
          this.created.push(d);
          if (d === top || dirname(d) === d) break;
        }
      }
      this.ready = true;
    }
    const path = join(this.folder, name);
    const tmp = `${path}.tmp-${process.pid}`;
    this.written.push(tmp, path);
    await writeFile(tmp, data);
    await rename(tmp, path);
    return path;
  }

  /** Writes the manifest that marks the download complete. */
  async finish(dataset: string, split: string, files: string[]): Promise<void> {
    const manifest: Manifest = { dataset, split, files, downloaded_at: new Date().toISOString() };
    await this.write("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`);
  }

  /** Removes what this writer wrote and the folders it created, where they are empty. */
  async discard(): Promise<void> {
    for (const file of this.written) await rm(file, { force: true });
    for (const dir of this.created) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
    }
  }
}
