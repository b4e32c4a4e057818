import { configDefaults, defineConfig } from "vitest/config";

/** How every test file runs, in either tier. */
const common = {
  globalSetup: ["test/global-setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 300_000,
  pool: "forks",
} as const;

/**
 * Two tiers, chosen by file name (README.md, Development). `*.unit.test.ts`: the unit tier
 * (`npm run test:unit`), in-process tests only: they start no process (no git, bash, node or python),
 * no server (not even on 127.0.0.1, no Redis) and no container, and need no dist/. Every other
 * `*.test.ts`: the integration tier (real git, bash, the CLI, loopback servers, Redis, engines), for
 * which dist/ is built first when it is out of date (test/global-setup.ts). `npm test` runs both.
 */
export default defineConfig({
  test: {
    // after the summary: which tests were skipped because Debian's python3-pytest is missing
    reporters: ["default", "./test/support/pytest-skips.ts"],
    projects: [
      {
        // Two workers even on two cores (the default there is one): the main process mostly waits,
        // so both cores run test files. Run first, then the integration tier at the default.
        test: {
          ...common,
          name: "unit",
          include: ["test/**/*.unit.test.ts"],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...common,
          name: "integration",
          sequence: { groupOrder: 1 },
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.unit.test.ts"],
        },
      },
    ],
  },
});
