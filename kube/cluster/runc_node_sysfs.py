#!/usr/bin/python3
"""runc, with a fake node sysfs in every workload container: what a kubelet cannot do.

This VM has no RAPL (/sys/class/powercap), and the sysfs a container sees is the host's, so
energy in pods needs a fixture. containerd's runc shim runs this instead of runc
(`BinaryName`, cluster.py's `node_sysfs`): at `create`, it adds to the bundle's OCI spec a
read-only bind mount of $ERGOBENCH_NODE_SYSFS at /ergobench-node-sysfs and points the
runner's ERGOBENCH_SYSFS_ROOT there; then it is runc. Sandboxes (pause) are left alone.

With $ERGOBENCH_HOST_SYSFS as well (`ergobench cluster up --node-sysfs`), a bind mount from under
that folder (the energy agent's hostPath mounts of the host's /sys) comes from the same path
under this node's sys/ instead: the nodes share the host's filesystem, and each node's /sys is
its own."""

import json
import os
import shutil
import sys

MOUNT_POINT = "/ergobench-node-sysfs"


def add_node_sysfs(bundle, source):
    path = os.path.join(bundle, "config.json")
    with open(path) as f:
        spec = json.load(f)
    if spec["process"].get("args") == ["/pause"]:
        return
    spec["mounts"].append({"destination": MOUNT_POINT, "type": "bind", "source": source, "options": ["rbind", "ro"]})
    spec["process"].setdefault("env", []).append(f"ERGOBENCH_SYSFS_ROOT={MOUNT_POINT}")
    with open(path + ".tmp", "w") as f:
        json.dump(spec, f)
    os.replace(path + ".tmp", path)


def redirect_host_sysfs(bundle, host_sysfs, node_sys):
    path = os.path.join(bundle, "config.json")
    with open(path) as f:
        spec = json.load(f)
    for mount in spec.get("mounts", []):
        source = mount.get("source", "")
        if source == host_sysfs or source.startswith(host_sysfs + "/"):
            mount["source"] = node_sys + source[len(host_sysfs):]
    with open(path + ".tmp", "w") as f:
        json.dump(spec, f)
    os.replace(path + ".tmp", path)


def main():
    args = sys.argv[1:]
    # Only `create` (and `run`, which containerd does not use) takes a bundle.
    if "--bundle" in args and os.environ.get("ERGOBENCH_NODE_SYSFS"):
        bundle = args[args.index("--bundle") + 1]
        add_node_sysfs(bundle, os.environ["ERGOBENCH_NODE_SYSFS"])
        if os.environ.get("ERGOBENCH_HOST_SYSFS"):
            redirect_host_sysfs(bundle, os.environ["ERGOBENCH_HOST_SYSFS"],
                                os.path.join(os.environ["ERGOBENCH_NODE_SYSFS"], "sys"))
    runc = shutil.which("runc", path="/usr/sbin:/usr/bin:/sbin:/bin")
    os.execv(runc, ["runc", *args])


if __name__ == "__main__":
    main()
