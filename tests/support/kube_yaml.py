#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The manifests of packaging/k8s/ as a test plays them with podman kube play.

  kube_yaml.py pod SRC IMAGE CAPTURES ARG...
      the capture Pod with this image, these args and its hostPath for the
      captures at CAPTURES; the node's name left out (podman has one node)
  kube_yaml.py agent SRC IMAGE NAME SETTING...
      the ConfigMap and the DaemonSet's pod template as a Pod named NAME
      (podman 4.3 plays no DaemonSet; its ports left out: podman maps
      none on the node's network), each SETTING ("name value", or
      "-name" to drop a setting) put in the configuration in place of the
      setting of that name, or after it

The result on stdout, one YAML stream.
"""
import sys

import yaml


def pod(src, image, captures, args):
    (doc,) = [d for d in yaml.safe_load_all(open(src)) if d]
    spec = doc["spec"]
    spec.pop("nodeName", None)
    (ctr,) = spec["containers"]
    ctr["image"] = image
    ctr["args"] = args
    for v in spec["volumes"]:
        if v["name"] == "captures":
            v["hostPath"]["path"] = captures
    return [doc]


def settings(text, changes):
    lines = text.splitlines()
    for change in changes:
        name = change.lstrip("-").split()[0]
        mine = [i for i, l in enumerate(lines) if l.lstrip("#").split()[:1] == [name]]
        if change.startswith("-"):
            lines = [l for i, l in enumerate(lines) if i not in mine]
        elif mine:
            lines[mine[0]] = change
        else:
            lines.append(change)
    return "\n".join(lines) + "\n"


def agent(src, image, name, changes):
    docs = [d for d in yaml.safe_load_all(open(src)) if d]
    (cm,) = [d for d in docs if d["kind"] == "ConfigMap"]
    (ds,) = [d for d in docs if d["kind"] == "DaemonSet"]
    cm["data"]["pktsample.conf"] = settings(cm["data"]["pktsample.conf"], changes)
    cm["metadata"].pop("namespace", None)
    template = ds["spec"]["template"]
    spec = template["spec"]
    for c in spec["containers"]:
        c["image"] = image
        # podman maps ports only on a network of its own; on the node's,
        # as in Kubernetes, the port is the container's own.
        c.pop("ports", None)
    p = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": template["metadata"]["labels"]},
        "spec": spec,
    }
    return [cm, p]


def main(argv):
    if len(argv) >= 5 and argv[1] == "pod":
        docs = pod(argv[2], argv[3], argv[4], argv[5:])
    elif len(argv) >= 5 and argv[1] == "agent":
        docs = agent(argv[2], argv[3], argv[4], argv[5:])
    else:
        sys.exit(__doc__)
    yaml.safe_dump_all(docs, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main(sys.argv)
