import { posix } from "node:path";

/**
 * Undo history per file: the bytes each file had before each edit (`null` when the edit created
 * it), newest last, at most `depth` levels per file.
 */
export class EditHistory {
  private readonly stacks = new Map<string, Array<Buffer | null>>();

  constructor(private readonly depth: number) {}

  private key(path: string): string {
    return posix.normalize(path);
  }

  /** Records the content a file had before an edit. */
  push(path: string, before: Buffer | null): void {
    const key = this.key(path);
    const stack = this.stacks.get(key) ?? [];
    stack.push(before);
    if (stack.length > this.depth) stack.shift();
    this.stacks.set(key, stack);
  }

  /** Takes the newest recorded content; undefined when there is none. */
  pop(path: string): Buffer | null | undefined {
    const stack = this.stacks.get(this.key(path));
    if (!stack || stack.length === 0) return undefined;
    return stack.pop();
  }

  /** How many edits of the file can still be undone. */
  size(path: string): number {
    return this.stacks.get(this.key(path))?.length ?? 0;
  }
}
