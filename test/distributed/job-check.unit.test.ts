import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { checkJob, INSTANCE_ID, REPO_NAME } from "../../src/distributed/job-check.js";
import { fitJob } from "../../src/distributed/job-fit.js";
import { instanceJobId } from "../../src/distributed/keys.js";
import type { InstanceJob } from "../../src/distributed/protocol.js";
import { signature } from "../../src/distributed/signing.js";

const SECRET = Buffer.from("a-secret-of-32-characters-length");

const job = (change: Partial<InstanceJob> = {}): InstanceJob => ({
  run: "swebench-42-abc",
  row: {
    repo: "django/django",
    instance_id: "django__django-11099",
    base_commit: "d26b2424437dabeeca94d7900b37d2df4410da0c",
    patch: "",
    test_patch: "",
    problem_statement: "UsernameValidator allows a trailing newline",
    hints_text: "",
    created_at: "2019-03-20T03:46:18Z",
    version: "3.0",
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    environment_setup_commit: "419a78300f7cd27611196e1e464d50fd0385ff27",
  },
  config: {},
  model_name: "openai/qwen",
  deliveries: 3,
  version: "1.0.0",
  ...change,
});
const idOf = (j: InstanceJob) => instanceJobId(j.run, j.row.instance_id);
const withRow = (row: Record<string, unknown>) => {
  const j = job();
  return { ...j, row: { ...j.row, ...row } } as InstanceJob;
};

describe("the check of an instance job taken from the queue", () => {
  it("a coordinator's job passes, as it was sent", () => {
    const j = job();
    expect(checkJob(j, idOf(j), null, null)).toEqual({ ok: true, job: j });
  });

  it("SWE-bench instance ids and repository names pass; anything that could leave a folder does not", () => {
    for (const id of [
      "django__django-11099",
      "Automattic__wp-calypso-21409",
      "pydata__xarray.js-7",
      "0b01__x_y-1",
      "instance_NodeBB__NodeBB-7b8bffd763e2155cf88f3ebc258fa68ebe18188d-vf2cf3cbd463b7ad942381f1c6d077626485a1e9e",
      "instance_ansible__ansible-0123456789abcdef0123456789abcdef01234567-vnan",
      "instance_owner__repo-0123456789abcdef0123456789abcdef01234567",
    ])
      expect([id, INSTANCE_ID.test(id)]).toEqual([id, true]);
    for (const id of [
      "../etc-1",
      "a/b__c-1",
      "django__django",
      "__x-1",
      "a__b-1\n",
      "a__b-1/..",
      "",
      "instance_a__b-0123456789abcdef0123456789abcdef01234567/..",
      "instance_../x__b-0123456789abcdef0123456789abcdef01234567",
      "instance_a__b-0123",
    ])
      expect([id, INSTANCE_ID.test(id)]).toEqual([id, false]);
    for (const repo of ["django/django", "pydata/xarray", "owner/.github", "a-b/c_d.e"])
      expect([repo, REPO_NAME.test(repo)]).toEqual([repo, true]);
    for (const repo of ["x/../../y", "../x", "/etc/passwd", "owner", "a/b/c", "a_b/c", "-a/b", "a/b\n"])
      expect([repo, REPO_NAME.test(repo)]).toEqual([repo, false]);
  });

  it("a row whose id, repository or run would become a path elsewhere is refused, naming the value", () => {
    const badId = withRow({ instance_id: "../../home/me/.ssh" });
    expect(checkJob(badId, idOf(badId), null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        'the job\'s row.instance_id "../../home/me/.ssh" is not a SWE-bench instance id ' +
        "(owner__name-NUMBER, e.g. django__django-11099, or a SWE-bench Pro id instance_owner__name-<commit>: letters, digits, - _ and . only); the worker makes folders from it",
    });
    const badRepo = withRow({ repo: "x/../../private" });
    expect(checkJob(badRepo, idOf(badRepo), null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        'the job\'s row.repo "x/../../private" is not a repository name ' +
        "(owner/name, e.g. django/django: letters, digits, - _ and . only); the worker makes folders from it",
    });
    const badRun = job({ run: "../x" });
    expect(checkJob(badRun, "whatever", null, null)).toEqual({
      ok: false,
      by: "job",
      problem: 'the job\'s run id "../x" is not one a coordinator makes (letters, digits, - and _)',
    });
    const noRepo = withRow({ repo: 7 });
    expect(checkJob(noRepo, idOf(job()), null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        "the job: its row has no repo (a non-empty string is required; got 7). Rows must follow the Hugging Face SWE-bench schema.",
    });
  });

  it("a job under another job's id, or not of this patchloop's shape, is refused", () => {
    const j = job();
    expect(checkJob(j, "swebench-42-abc.other__repo-1", null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        'the job\'s id "swebench-42-abc.other__repo-1" is not that of its run and instance (swebench-42-abc.django__django-11099)',
    });
    expect(checkJob({ ...j, extra: 1 }, idOf(j), null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        'it is not an instance job of this patchloop (Unrecognized key: "extra"); ' +
        "run the same patchloop version on the coordinator and the workers",
    });
    expect(checkJob(null, idOf(j), null, null)).toEqual({
      ok: false,
      by: "job",
      problem:
        "it is not an instance job of this patchloop (Invalid input: expected object, received null); " +
        "run the same patchloop version on the coordinator and the workers",
    });
    expect(checkJob({ ...j, deliveries: "3" }, idOf(j), null, null)).toMatchObject({
      ok: false,
      by: "job",
      problem: expect.stringContaining("(deliveries: Invalid input: expected number, received string)"),
    });
  });

  it("with a secret: only a job signed with it passes; without one, a signed job is refused as this worker's problem", () => {
    const j = job();
    const signed = { ...j, sig: signature(SECRET, "job", j) };
    expect(checkJob(signed, idOf(j), SECRET, "PL_SECRET")).toEqual({ ok: true, job: signed });
    expect(checkJob(j, idOf(j), SECRET, "PL_SECRET")).toEqual({
      ok: false,
      by: "job",
      problem:
        "the job carries no signature, and this worker runs only signed jobs (run.queue.secret_env PL_SECRET); " +
        "its coordinator must set run.queue.secret_env to a variable holding the same secret",
    });
    const altered = { ...signed, config: { environment: { binds: ["/:/host:rw"] } } };
    const otherKey = { ...j, sig: signature(Buffer.from("another-secret-of-some-length"), "job", j) };
    const asResult = { ...j, sig: signature(SECRET, "result", j) };
    for (const bad of [altered, otherKey, asResult, { ...j, sig: "zz" }])
      expect(checkJob(bad, idOf(j), SECRET, "PL_SECRET")).toEqual({
        ok: false,
        by: "job",
        problem:
          "the job's signature does not match (run.queue.secret_env PL_SECRET): it was not made by a coordinator " +
          "with this worker's secret, or was changed since",
      });
    // the worker lacks the secret (another worker may have it): its problem, not the job's
    expect(checkJob(signed, idOf(j), null, null)).toEqual({
      ok: false,
      by: "worker",
      problem:
        "the job is signed (its coordinator sets run.queue.secret_env), and this worker has no secret to check it " +
        "with; start it with -c run.queue.secret_env=NAME, NAME holding the coordinator's secret",
    });
  });
});

describe("a job with another version, on a worker with a secret", () => {
  const fitOn = (data: unknown, secret: Buffer | null) =>
    fitJob(data, idOf(job()), {
      version: "1.0.0",
      secret,
      secretEnv: secret ? "PL_SECRET" : null,
      own: loadConfig({ configArgs: ["swebench"], defaultConfig: "swebench" }).config,
      explicit: {},
      cloneProblem: () => null,
    });

  it("is checked for its signature first: a forged one fails as the job's fault, and its text is never repeated", () => {
    // Before: the version was compared first, and the worker signed a refusal that repeated the attacker's text.
    const forged = job({ version: "9.9.9 ATTACKER TEXT" });
    for (const bad of [
      forged,
      { ...forged, sig: signature(Buffer.from("another-secret-of-some-length"), "job", forged) },
    ]) {
      const got = fitOn(bad, SECRET);
      expect(got.ok).toBe(false);
      expect(got).toMatchObject({ by: "job" });
      expect(JSON.stringify(got)).not.toContain("ATTACKER TEXT");
      expect(got).not.toHaveProperty("route");
    }
  });

  it("signed by its coordinator: handed back as this worker's problem (another version), with the route to report it", () => {
    const other = job({ version: "1.1.0" });
    const got = fitOn({ ...other, sig: signature(SECRET, "job", other) }, SECRET);
    expect(got).toEqual({
      ok: false,
      by: "worker",
      problem:
        "this worker runs patchloop 1.0.0 and the job comes from a coordinator of patchloop 1.1.0: run one version on the coordinator and every worker",
      route: { run: "swebench-42-abc", instanceId: "django__django-11099" },
    });
    // Without a secret nothing can be checked first: the version is this worker's problem, as before.
    expect(fitOn(other, null)).toMatchObject({ ok: false, by: "worker" });
  });
});
