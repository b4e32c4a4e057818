"""mini-swe-agent's side of `npm run bench -- --only peer` (bench/peer.ts), run with Debian's python3.

litellm is not packaged by Debian, so the model is a small class of our own speaking the OpenAI
chat-completions protocol with `requests` (one Session per model, as an HTTP client with a
connection pool would). Everything else is mini-swe-agent's own: DefaultAgent and LocalEnvironment
for one task, and for the batch the `process_instance` of its SWE-bench batch runner, on a thread
pool as its `main` runs it, with the environment made local (a shared clone of the repository per
instance, in place of a docker image). Where pydantic is 1.x (Debian 12), `model_dump` is given to
its BaseModel (pydantic 2's name for `dict`), the one name of pydantic 2 that mini calls.

Usage: python3 peer_mini.py MINI_SRC single URL CWD STEPS OUT_DIR TASK
       python3 peer_mini.py MINI_SRC batch URL REPO WORK_DIR OUT_DIR WORKERS INSTANCES
"""

import sys

sys.path.insert(0, sys.argv[1])

import concurrent.futures  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import requests  # noqa: E402
from pydantic import BaseModel  # noqa: E402

if not hasattr(BaseModel, "model_dump"):
    # Debian 12 packages pydantic 1.10; mini-swe-agent calls pydantic 2's names for the same things.
    import json as _json

    BaseModel.model_dump = lambda self, mode=None, **kw: _json.loads(self.json()) if mode == "json" else self.dict()

import os  # noqa: E402

SHELL = os.environ.get("PATCHLOOP_PEER_MINI_SHELL")
if SHELL:
    # `--mini-shell PATH` (bench/peer.ts): mini's LocalEnvironment runs its commands with
    # subprocess's shell=True, which is /bin/sh (dash on Debian); PATH (bash) runs them instead, to
    # tell the shell's part of a difference from the scaffold's.
    _Popen = subprocess.Popen

    class _ShellPopen(_Popen):
        def __init__(self, *args, **kwargs):
            if kwargs.get("shell"):
                kwargs.setdefault("executable", SHELL)
            super().__init__(*args, **kwargs)

    subprocess.Popen = _ShellPopen

from minisweagent.config import get_config_from_spec  # noqa: E402
from minisweagent.models import GLOBAL_MODEL_STATS  # noqa: E402
from minisweagent.models.utils.actions_toolcall import (  # noqa: E402
    BASH_TOOL,
    format_toolcall_observation_messages,
    parse_toolcall_actions,
)
from minisweagent.utils.serialize import recursive_merge  # noqa: E402


class RequestsModelConfig(BaseModel):
    model_name: str = "bench"
    base_url: str = ""
    model_kwargs: dict = {}
    format_error_template: str = "{{ error }}"
    observation_template: str = "<returncode>{{output.returncode}}</returncode>\n<output>\n{{output.output}}</output>"
    cost_tracking: str = "ignore_errors"
    model_class: str = ""


class RequestsModel:
    """mini's Model protocol over plain HTTP: query, format_message, format_observation_messages."""

    def __init__(self, **kwargs):
        self.config = RequestsModelConfig(**kwargs)
        self.session = requests.Session()

    def query(self, messages: list[dict], **kwargs) -> dict:
        body = {
            "model": self.config.model_name,
            "messages": [{k: v for k, v in m.items() if k != "extra"} for m in messages],
            "tools": [BASH_TOOL],
            **self.config.model_kwargs,
        }
        r = self.session.post(f"{self.config.base_url}/chat/completions", json=body, timeout=600)
        r.raise_for_status()
        data = r.json()
        GLOBAL_MODEL_STATS.add(0.0)
        choice = data["choices"][0]
        raw_calls = choice["message"].get("tool_calls") or []
        calls = [
            SimpleNamespace(id=c["id"], function=SimpleNamespace(**c["function"])) for c in raw_calls
        ]
        actions = parse_toolcall_actions(
            calls,
            format_error_template=self.config.format_error_template,
            template_kwargs={"finish_reason": choice.get("finish_reason")},
        )
        message = dict(choice["message"])
        message["extra"] = {"actions": actions, "response": data, "cost": 0.0, "timestamp": time.time()}
        return message

    def format_message(self, **kwargs) -> dict:
        return kwargs

    def format_observation_messages(self, message: dict, outputs: list[dict], template_vars: dict | None = None):
        return format_toolcall_observation_messages(
            actions=message.get("extra", {}).get("actions", []),
            outputs=outputs,
            observation_template=self.config.observation_template,
            template_vars=template_vars,
        )

    def get_template_vars(self, **kwargs) -> dict:
        return self.config.model_dump()

    def serialize(self) -> dict:
        return {"info": {"config": {"model": self.config.model_dump(mode="json"), "model_type": "peer_mini.RequestsModel"}}}


def single(url: str, cwd: str, steps: str, out_dir: str, task: str) -> None:
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.local import LocalEnvironment

    config = get_config_from_spec("default.yaml")
    model = RequestsModel(**recursive_merge(config.get("model", {}), {"base_url": url}))
    env = LocalEnvironment(**{**config.get("environment", {}), "cwd": cwd})
    agent_config = recursive_merge(
        config["agent"], {"step_limit": int(steps), "cost_limit": 0, "output_path": Path(out_dir) / "t.traj.json"}
    )
    agent = DefaultAgent(model, env, **agent_config)
    info = agent.run(task)
    print(info.get("exit_status"))


def batch(url: str, repo: str, work_dir: str, out_dir: str, workers: str, count: str) -> None:
    from rich.live import Live

    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.run.benchmarks import swebench
    from minisweagent.run.benchmarks.utils.batch_progress import RunBatchProgressManager

    def local_environment(config: dict, instance: dict):
        # In place of a docker image per instance: a shared clone of the repository at its base commit.
        where = Path(work_dir) / instance["instance_id"]
        subprocess.run(["git", "clone", "-q", "--shared", repo, str(where)], check=True)
        subprocess.run(["git", "checkout", "-q", instance["base_commit"]], cwd=where, check=True)
        return LocalEnvironment(**{**config.get("environment", {}), "cwd": str(where)})

    swebench.get_sb_environment = local_environment
    swebench.get_model = lambda config: RequestsModel(**config)
    config = recursive_merge(
        get_config_from_spec("swebench.yaml"),
        {"agent": {"cost_limit": 0}, "model": {"base_url": url, "model_name": "bench"}, "environment": {"environment_class": "local"}},
    )
    # Its config points BASH_ENV at /root/.bashrc for its containers, where bash -c reads no rc file.
    # Here the commands run on this machine, as patchloop's do (which reads none): with bash
    # (--mini-shell), a ~/.bashrc that runs a bash script (pyenv init) would start itself again and again.
    config.get("environment", {}).get("env", {}).pop("BASH_ENV", None)
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    instances = [
        {"instance_id": f"bench__calc-{i + 1}", "problem_statement": f"peer-task-{i + 1}: add() subtracts", "base_commit": base}
        for i in range(int(count))
    ]
    output = Path(out_dir)
    output.mkdir(parents=True, exist_ok=True)
    progress = RunBatchProgressManager(len(instances), output / f"exit_statuses_{time.time()}.yaml")
    with Live(progress.render_group, refresh_per_second=4):
        with concurrent.futures.ThreadPoolExecutor(max_workers=int(workers)) as executor:
            futures = [executor.submit(swebench.process_instance, i, output, config, progress) for i in instances]
            for f in concurrent.futures.as_completed(futures):
                f.result()


if __name__ == "__main__":
    {"single": single, "batch": batch}[sys.argv[2]](*sys.argv[3:])
