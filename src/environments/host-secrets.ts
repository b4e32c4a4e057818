import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Paths under a folder shown to a sandbox (/etc) that it must not read: what the host keeps from
 * other users (files and folders that are not world-readable: /etc/shadow, /etc/gshadow, ssh host
 * keys, /etc/ssl/private, keytabs), every socket, and the named secret files whatever their mode.
 * The sandbox runs as the host user, who may read them on the host; bwrap hides each one (an empty
 * file or folder over it). Symbolic links are not followed: they resolve inside the sandbox, where
 * their targets are judged by the same rules.
 */
export interface HiddenPaths {
  files: string[];
  dirs: string[];
}

/** Always hidden when present, whatever their permissions say. */
const NAMED = [
  "shadow",
  "shadow-",
  "gshadow",
  "gshadow-",
  "security/opasswd",
  "ssl/private",
  "krb5.keytab",
  "docker/key.json",
  "sudoers",
  "sudoers.d",
];

const WORLD_READ = 0o004;
const MAX_ENTRIES = 100_000;

/** Walks `root` (iteratively, without following links) and lists what to hide. */
export function secretPathsUnder(root: string): HiddenPaths {
  const out: HiddenPaths = { files: [], dirs: [] };
  const named = new Set(NAMED.map((n) => join(root, n)));
  const stack = [root];
  let seen = 0;
  while (stack.length > 0 && seen < MAX_ENTRIES) {
    const dir = stack.pop() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      seen++;
      const path = join(dir, name);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      const hidden = named.has(path) || (st.mode & WORLD_READ) === 0 || st.isSocket();
      if (st.isDirectory()) {
        if (hidden) out.dirs.push(path);
        else stack.push(path);
      } else if (hidden) {
        out.files.push(path);
      }
    }
  }
  out.files.sort();
  out.dirs.sort();
  return out;
}

let etc: HiddenPaths | undefined;

/** {@link secretPathsUnder} of /etc, found once per process. */
export function hostEtcSecrets(): HiddenPaths {
  etc ??= secretPathsUnder("/etc");
  return etc;
}
