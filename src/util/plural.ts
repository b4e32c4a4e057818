/** `1 instance`, `0 instances`, `2 files`: a count with its noun in the number it needs. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
