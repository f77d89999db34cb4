#!/usr/bin/python3
"""A test Kubernetes API server for real kubectl: HTTPS on 127.0.0.1, bearer-token auth,
discovery, CRUD/watch with selectors, CRD schema validation, pods/exec over WebSocket running
commands in per-pod directories, and a kubelet + agent-sandbox controller simulation.

    kube_api_server.py --state-dir DIR [--crds DIR] [--kubeconfig PATH] [--config JSON]

When ready it prints one line to stdout:
    READY port=<port> kubeconfig=<path> url=https://127.0.0.1:<port>
See README.md in this directory."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from api import Api  # noqa: E402
from controller import Simulation  # noqa: E402
from exec_runner import ExecService  # noqa: E402
from http_server import HttpServer, random_token  # noqa: E402
from objects import ObjectService  # noqa: E402
from resources import Registry, builtin_types, load_crds  # noqa: E402
from store import Store  # noqa: E402
from hooks import TestHooks  # noqa: E402
from tls_setup import make_certificates, server_context, write_kubeconfig  # noqa: E402
from validation import Admission  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--state-dir", required=True, help="certificates, kubeconfig and pod directories go here")
    p.add_argument("--crds", default=os.path.join(HERE, "crds"), help="directory of CRD YAML files to serve")
    p.add_argument("--kubeconfig", help="where to write the kubeconfig (default <state-dir>/kubeconfig)")
    p.add_argument("--namespace", default="default", help="namespace of the kubeconfig context")
    p.add_argument("--config", help="JSON simulation config (see README), or @file")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run exec'd commands without bubblewrap (cwd = the pod's workspace directory)")
    p.add_argument("--log-level", default="WARNING")
    return p.parse_args(argv)


async def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), stream=sys.stderr,
                        format="kube-api %(levelname)s %(name)s: %(message)s")
    state_dir = os.path.abspath(args.state_dir)
    os.makedirs(state_dir, exist_ok=True)
    kubeconfig = os.path.abspath(args.kubeconfig or os.path.join(state_dir, "kubeconfig"))

    registry = Registry(builtin_types() + (load_crds(args.crds) if args.crds and os.path.isdir(args.crds) else []))
    store = Store()
    objects = ObjectService(registry, store, Admission(registry))
    simulation = Simulation(registry, objects)
    if args.config:
        text = open(args.config[1:], encoding="utf-8").read() if args.config.startswith("@") else args.config
        simulation.configure(json.loads(text))
    exec_service = ExecService(registry, objects, os.path.join(state_dir, "pods"), os.path.join(state_dir, "pvcs"),
                               simulation, use_bwrap=not args.no_sandbox)
    simulation.on_pod_deleted = exec_service.forget_pod
    simulation.kubelet.run_container = exec_service.run_captured
    simulation.kubelet.store_log = exec_service.store_log
    simulation.kubelet.on_deadline = exec_service.stop_pod_processes
    token = random_token()
    ca, cert, key = make_certificates(os.path.join(state_dir, "tls"))
    api = Api(registry, objects, token, "127.0.0.1:0", exec_handler=exec_service.handle_exec,
              log_handler=exec_service.handle_log, hooks=None)
    api.hooks = TestHooks(registry, objects, simulation, exec_service)
    api.authorizer = simulation.forbids
    server = HttpServer(api, server_context(cert, key))
    port = await server.start("127.0.0.1", 0)
    api.server_address = f"127.0.0.1:{port}"
    url = f"https://127.0.0.1:{port}"
    write_kubeconfig(kubeconfig, url, ca, token, args.namespace)
    simulation.start()

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"READY port={port} kubeconfig={kubeconfig} url={url}", flush=True)
    await stop.wait()
    await server.stop()
    await exec_service.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
