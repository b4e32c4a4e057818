/** A byte count for people: `834 bytes`, `12.3 kB`, `4.1 MB` (decimal units). */
export function formatBytes(bytes: number): string {
  if (bytes === 1) return "1 byte";
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`;
}
