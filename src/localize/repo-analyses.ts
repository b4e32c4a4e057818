import { forgetTokenMemo } from "./lucene-analyzer.js";
import type { DocStore } from "./repo-files.js";
import { forgetIdentifierMemo } from "./tokenize.js";

/**
 * The analyses of each repository's files (one {@link DocStore} per repository), kept while
 * instances of that repository are still to be localized, so that they share the work for every
 * file their commits have in common, and dropped when none is.
 *
 * Whoever runs a list of instances says which are to come: `retain(repo)` once per pending
 * instance (at the start), `release(repo)` once per instance when it is over, whatever its outcome
 * (localized, failed, skipped). When a repository's count reaches 0 its analyses are dropped.
 * A repository nobody retained (a worker taking jobs one at a time, `config show`) is kept only
 * until another unretained repository is asked for: at most one such repository is held.
 */
export class RepoAnalyses {
  private readonly retained = new Map<string, { pending: number; store?: DocStore }>();
  private unretained?: { repo: string; store: DocStore };

  /** `n` more instances of `repo` are to be localized. */
  retain(repo: string, n = 1): void {
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`retain(${JSON.stringify(repo)}, ${n}): n must be 1 or more`);
    const held = this.retained.get(repo);
    if (held) held.pending += n;
    else {
      // an unretained store of this repository becomes the retained one
      const adopted = this.unretained?.repo === repo ? this.unretained.store : undefined;
      if (adopted) this.unretained = undefined;
      this.retained.set(repo, { pending: n, store: adopted });
    }
  }

  /**
   * One instance of `repo` is over. At the last one the repository's analyses are dropped (a
   * snapshot still in use keeps its own files). A release of a repository not retained does nothing.
   */
  release(repo: string): void {
    const held = this.retained.get(repo);
    if (!held) return;
    if (--held.pending > 0) return;
    this.retained.delete(repo);
    if (held.store) forgetMemos();
  }

  /**
   * The store to read an instance of `repo` into; `make` makes a new one (`() => new DocStore()`).
   * It is the caller's because DocStore brings the parsers (tree-sitter) with it: a batch that
   * only counts its instances here (local-dispatch.ts) does not load them (issue 45: start-up).
   */
  store(repo: string, make: () => DocStore): DocStore {
    const held = this.retained.get(repo);
    if (held) {
      held.store ??= make();
      return held.store;
    }
    if (this.unretained?.repo !== repo) {
      if (this.unretained) forgetMemos();
      this.unretained = { repo, store: make() };
    }
    return this.unretained.store;
  }

  /** The repositories held, with their pending instances (0 for the unretained one) and analysed files. */
  held(): Array<{ repo: string; pending: number; files: number }> {
    const out = [...this.retained].map(([repo, h]) => ({
      repo,
      pending: h.pending,
      files: h.store?.size ?? 0,
    }));
    if (this.unretained)
      out.push({ repo: this.unretained.repo, pending: 0, files: this.unretained.store.size });
    return out;
  }
}

/** The tokenizers' memos hold identifiers of every repository analysed: emptied with each one dropped. */
function forgetMemos(): void {
  forgetIdentifierMemo();
  forgetTokenMemo();
}

let shared: RepoAnalyses | undefined;

/** The process's analyses: what `patchloop localize`, `config show` and `agent.localize` in a batch use. */
export function repoAnalyses(): RepoAnalyses {
  shared ??= new RepoAnalyses();
  return shared;
}
