/**
 * Whether a process with this pid exists (signal 0; a process of another user, EPERM, exists too).
 * Pids are reused: where a later process could hold the same pid, compare its start time as well
 * (environments/container-registry.ts `ownerAlive`).
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
