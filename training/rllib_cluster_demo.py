"""A two-node Ray cluster on this one machine (loopback), proving that env runners on the
second node play the games RLlib trains on.

    python -m training.rllib_cluster_demo [--port 6390] [--config configs/rllib_smoke.yaml]

Starts ``ray start --head --block`` (node 1, 1 CPU) and ``ray start --address
127.0.0.2:PORT --block`` (node 2, 2 CPUs and the custom resource ``worker_node``) as child
processes, both with ``--node-ip-address=127.0.0.2``, joins the cluster from that address,
trains the config for ``--iterations`` iterations with two env runners that need
``worker_node`` (so Ray must place them on node 2; the learner stays in this driver on
node 1), prints each runner's node id, host and pid and the finished hands per node,
writes them and the nodes' advertised addresses to ``<run>/cluster_demo.json``, and exits
0 only if both nodes advertised a loopback address, every runner ran on node 2 and node 2
finished hands. Both nodes are stopped at the end by terminating the two ``ray start
--block`` processes this script started (never ``ray stop``, which would stop every Ray
node of the user on this machine).

Why 127.0.0.2 (:data:`NODE_IP`): Ray replaces ``127.0.0.1`` / ``localhost`` given as a
node's address by the machine's network address (``resolve_ip_for_localhost``) when
multi-node clusters are enabled, and refuses to start a second node when they are not
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, the single-node loopback setting of
:func:`training.rllib.keep_on_loopback`). Any other address of 127.0.0.0/8 is loopback on
Linux too and Ray keeps it as given. (The GCS and raylets still listen on every interface,
as Ray's servers do; the nodes advertise and use 127.0.0.2 only.)

On a real cluster the same run is ``ray start --head --port 6379`` on one machine,
``ray start --address HEAD:6379`` on the others, then ``python -m training.rllib --config
... --address HEAD:6379`` (see docs/rllib.md, "On a cluster").
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from canasta_env.cli import require_extra

#: the address both nodes and the driver use: loopback, but not one Ray rewrites (see above)
NODE_IP = "127.0.0.2"


def _ray_cmd() -> list[str]:
    exe = shutil.which("ray")
    return [exe] if exe else [sys.executable, "-m", "ray.scripts.scripts"]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((NODE_IP, port)) == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((NODE_IP, 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen, name: str) -> None:
    """Stop a ``ray start --block`` we started and its node's processes (the GCS, raylet,
    workers: its own process group, which this script created): SIGTERM, then SIGKILL
    for what is left after 10 s (``ray start --block`` does not always exit on SIGTERM)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.time() + 10
    while time.time() < deadline and _group_alive(proc.pid):
        proc.poll()
        time.sleep(0.5)
    if _group_alive(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    print(f"stopped {name} (process group {proc.pid})", flush=True)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def run_demo(config: str, port: int, iterations: int, checkpoint_dir: str | None = None,
             timeout: float = 120.0) -> dict:
    """Start the two nodes, train, stop the nodes; return the evidence (see the module
    docstring) with ``ok`` true when the runners ran on node 2 and played there.

    Raises:
        RuntimeError: a node did not come up within ``timeout`` seconds.
        training.config.ConfigError: a bad config, or the run directory holds a run.
    """
    # token authentication with a token of this run only (Ray 2.60 enables token auth
    # for ray start; the driver and both nodes must share it). Ray reads the mode when it
    # is first imported: set it before (run the demo in a fresh process, as main does).
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    saved = {k: os.environ.get(k) for k in auth}
    os.environ.update(auth)
    try:
        return _run_demo(config, port, iterations, checkpoint_dir, timeout, auth)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run_demo(config: str, port: int, iterations: int, checkpoint_dir: str | None,
              timeout: float, auth: dict) -> dict:
    import ray

    from .rllib import init_ray, load_rllib_config, train

    base = load_rllib_config(config)
    stamp = time.strftime("%Y%m%d_%H%M%S")
    data = base.model_dump()
    data.update(run_name=f"{base.run_name}_cluster_demo_{stamp}_{os.getpid()}",
                total_timesteps=base.ppo.train_batch_size * iterations, max_minutes=None)
    if checkpoint_dir:
        data["checkpoint_dir"] = checkpoint_dir
        data["tensorboard_dir"] = str(Path(checkpoint_dir) / "runs")
    data["env_runners"].update(num_env_runners=2, num_cpus_per_env_runner=1,
                               custom_resources={"worker_node": 1})
    if data["env"] == "vector":  # few games per runner, so that hands end within the run
        data["env_runners"]["games_per_env"] = min(data["env_runners"]["games_per_env"], 2)
    cfg = type(base)(**data)

    tmp = tempfile.mkdtemp(prefix="rayd", dir="/tmp")  # short: Ray's socket paths
    common = ["--block", f"--node-ip-address={NODE_IP}", "--disable-usage-stats"]
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", **auth)
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)  # a cluster of two nodes
    log_head = open(Path(tmp) / "head.log", "w")  # noqa: SIM115 - closed in finally
    log_worker = open(Path(tmp) / "worker.log", "w")  # noqa: SIM115
    head = subprocess.Popen(
        [*_ray_cmd(), "start", "--head", f"--port={port}", "--num-cpus=1",
         "--include-dashboard=false", f"--temp-dir={tmp}", "--resources={\"head_node\": 1}",
         f"--object-store-memory={200 * 2**20}", *common],
        stdout=log_head, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    worker = None
    try:
        t0 = time.time()
        while not _port_open(port):
            if head.poll() is not None or time.time() - t0 > timeout:
                raise RuntimeError(f"the head node did not start; see {log_head.name}")
            time.sleep(0.5)
        print(f"node 1 (head): ray start --head --port {port} pid {head.pid}", flush=True)
        worker = subprocess.Popen(
            [*_ray_cmd(), "start", f"--address={NODE_IP}:{port}", "--num-cpus=2",
             "--resources={\"worker_node\": 2}", f"--object-store-memory={200 * 2**20}",
             *common],
            stdout=log_worker, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        init_ray(cfg, f"{NODE_IP}:{port}", node_ip_address=NODE_IP)
        while True:
            alive = [n for n in ray.nodes() if n["Alive"]]
            if len(alive) >= 2:
                break
            if worker.poll() is not None or time.time() - t0 > timeout:
                raise RuntimeError(f"the second node did not join; see {log_worker.name}")
            time.sleep(0.5)
        nodes = {n["NodeID"]: ("worker" if "worker_node" in n["Resources"] else "head")
                 for n in alive}
        addresses = sorted({n["NodeManagerAddress"] for n in alive})
        node2 = next(k for k, v in nodes.items() if v == "worker")
        print(f"node 2: ray start --address {NODE_IP}:{port} pid {worker.pid}, node id "
              f"{node2[:12]}", flush=True)
        report: dict = {}
        train(cfg, report=report)
    finally:
        if ray.is_initialized():
            ray.shutdown()
        if worker is not None:
            _stop(worker, "node 2")
        _stop(head, "node 1 (head)")
        log_head.close()
        log_worker.close()
        shutil.rmtree(tmp, ignore_errors=True)
    runners = report.get("runners", [])
    hands = {k: int(v) for k, v in report.get("hands_by_node", {}).items()}
    loopback = all(ipaddress.ip_address(a).is_loopback for a in addresses)
    evidence = {
        "nodes": nodes, "addresses": addresses, "loopback": loopback, "second_node": node2,
        "runners": runners, "hands_by_node": hands, "env_steps": report.get("env_steps"),
        "ok": loopback and bool(runners) and all(r["node_id"] == node2 for r in runners)
        and hands.get(node2, 0) > 0,
    }
    (cfg.run_dir / "cluster_demo.json").write_text(json.dumps(evidence, indent=2))
    return evidence


def main(argv: list[str] | None = None) -> int:
    require_extra("python -m training.rllib_cluster_demo", "training", "distributed")
    p = argparse.ArgumentParser(prog="python -m training.rllib_cluster_demo",
                                description=__doc__.split("\n")[0])
    p.add_argument("--config", default="configs/rllib_smoke.yaml")
    p.add_argument("--port", type=int, default=0, help="head port (default: a free one)")
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--checkpoint-dir", default=None, help="override the config's")
    args = p.parse_args(argv)
    # two nodes form a cluster: Ray must advertise the machine's address (not the
    # single-machine loopback setting of training.rllib.keep_on_loopback)
    os.environ.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
    from .config import ConfigError

    try:
        ev = run_demo(args.config, args.port or _free_port(), args.iterations,
                      args.checkpoint_dir)
    except (ConfigError, RuntimeError) as e:
        print("error: " + "; ".join(line.strip() for line in str(e).splitlines()),
              file=sys.stderr)
        return 2
    print(f"env runners on node 2: {sum(r['node_id'] == ev['second_node'] for r in ev['runners'])}"
          f"/{len(ev['runners'])}; hands finished on node 2: "
          f"{ev['hands_by_node'].get(ev['second_node'], 0)}; "
          f"{'OK' if ev['ok'] else 'FAILED'}", flush=True)
    return 0 if ev["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
