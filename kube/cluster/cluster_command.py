"""`ergobench cluster`: a real Kubernetes cluster of N nodes on this machine (cluster.py), with
links of known speed between them.

  ergobench cluster up [--nodes N] [--link-rate 1Gbit] [--link-delay 50us] [--instance-type T]
                       [--label KEY=VALUE]... [--node-label N:KEY=VALUE]... [--image NAME]...
  ergobench cluster status
  ergobench cluster load IMAGE...          podman images onto every node, as `kind load`
  ergobench cluster link NODE [--rate R] [--delay D] [--unshaped]
  ergobench cluster fail NODE              the node hangs and its link is cut
  ergobench cluster recover NODE
  ergobench cluster down

`up` is idempotent: a cluster that runs as asked is left as it is (links reset to their rate,
failed nodes recovered). It prints the kubeconfig to use. Exit codes: 0 done, 1 the cluster
failed (its logs are in the work dir), 2 bad input, 3 no cluster runs (status, load, link,
fail, recover).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Only network.py at the top: cluster.py and control_plane.py find (and may install) the
# Kubernetes binaries and tools as they load, which parsing the options must not wait for.
import network  # noqa: E402
from network import InputError, shown  # noqa: E402

DEFAULT_WORKDIR = os.path.join(os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state"),
                               "ergobench", "cluster")


class UsageError(Exception):
    pass


_LABEL_NAME = r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)"
_LABEL_PREFIX = r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*"


def parse_label(text, option):
    """KEY=VALUE as Kubernetes takes a label (checked here, before any node starts): KEY an
    optional DNS-subdomain prefix and '/', then a name of at most 63 characters; VALUE empty or
    a name."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise UsageError(f"{option}: {shown(text)} is not KEY=VALUE")
    prefix, slash, name = key.rpartition("/")
    if not re.fullmatch(_LABEL_NAME, name) or (slash and (len(prefix) > 253 or not re.fullmatch(_LABEL_PREFIX, prefix))):
        raise UsageError(f"{option}: {shown(key)} is not a label key (a name of up to 63 of [A-Za-z0-9-_.], "
                         "after an optional DNS prefix and /)")
    if value and not re.fullmatch(_LABEL_NAME, value):
        raise UsageError(f"{option}: {shown(value)} is not a label value (up to 63 of [A-Za-z0-9-_.])")
    return key, value


def spec_of(args):
    from cluster import LABEL_OPTIONS, ClusterSpec
    network.NodeAddress(args.nodes)  # the count in range before anything is made per node
    common = dict(parse_label(text, "--label") for text in args.label)
    for option, key in LABEL_OPTIONS.items():
        if getattr(args, option):
            common.update([parse_label(f"{key}={getattr(args, option)}", "--" + option.replace("_", "-"))])
    labels = {index: dict(common) for index in range(1, args.nodes + 1)} if common else {}
    for text in args.node_label:
        index, sep, label = text.partition(":")
        if not sep or not index.isdigit():
            raise UsageError(f"--node-label: {shown(text)} is not N:KEY=VALUE")
        key, value = parse_label(label, "--node-label")
        labels.setdefault(int(index), {})[key] = value
    rate = network.parse_rate(args.link_rate) if args.link_rate else None
    delay = network.parse_delay(args.link_delay) if args.link_delay else None
    return ClusterSpec(args.nodes, rate, delay, labels, node_sysfs_of(args.node_sysfs, args.nodes))


def node_sysfs_of(folder, nodes):
    """--node-sysfs: the folder, absolute, once it holds ergobench-nodeN/sys for every node; sys/class
    and sys/devices made in it for the energy agent's hostPath mounts (energyAgent.hostSysfs:
    FOLDER/sys), which each node's runc gives from its own."""
    if not folder:
        return None
    folder = os.path.abspath(folder)
    missing = [f"{network.NODE_PREFIX}{index}/sys" for index in range(1, nodes + 1)
               if not os.path.isdir(os.path.join(folder, f"{network.NODE_PREFIX}{index}", "sys"))]
    if missing:
        raise UsageError(f"--node-sysfs: {shown(folder)} has no {', '.join(missing)}: one sys/ folder a node")
    for part in ("class", "devices"):
        os.makedirs(os.path.join(folder, "sys", part), exist_ok=True)
    return folder


def print_up(workdir, state):
    spec = state["spec"]
    link = network.format_rate(spec["linkRate"]) if spec.get("linkRate") else "unshaped"
    print(f"cluster up: {spec['nodes']} node(s), links {link}, work dir {workdir}")
    print(f"export KUBECONFIG={state['kubeconfig']}")


def up(args):
    from cluster import Cluster, cluster_down, running_cluster
    spec = spec_of(args)
    running = running_cluster()
    if running:
        workdir, state = running
        if state["spec"] != spec.to_json():
            raise UsageError(f"a cluster of {state['spec']['nodes']} node(s) runs from {workdir}, set up otherwise: "
                             "`ergobench cluster down` first, or `ergobench cluster link` to change a link")
        # As asked: a link changed since (`cluster link`) goes back to the rate `up` gave, and a
        # failed node (`cluster fail`) comes back.
        for node in nodes_of(workdir, state):
            recover_node(node)
            network.shape_link(node.net, spec.link_rate, spec.link_delay)
        load_images(args.image)
        print_up(workdir, state)
        return 0
    # What a dead cluster left is ended first, its mounts under the work dir among them: a
    # container's root holds bind mounts of host folders, which deleting the dir would reach.
    cluster_down()
    clear_workdir(args.workdir)
    cluster = Cluster(args.workdir, spec)
    try:
        cluster.start()
        for image in args.image:
            cluster.import_podman_image(image)
    except BaseException:
        cluster.stop()
        raise
    # Left running: its processes are in sessions of their own, and `down` ends them.
    cluster.lock.close()
    print_up(args.workdir, running_cluster()[1])
    return 0


def clear_workdir(workdir):
    """An earlier cluster's work dir is emptied; any other folder with something in it is refused,
    never deleted (`--workdir ~` must not cost anyone their home)."""
    if os.path.isdir(workdir) and os.listdir(workdir):
        if not os.path.isdir(os.path.join(workdir, "pki")):
            raise UsageError(f"--workdir: {shown(workdir)} holds files of something other than a cluster; "
                             "name an empty or new folder")
        with open("/proc/mounts") as f:
            mounted = [line.split()[1] for line in f if line.split()[1].startswith(os.path.abspath(workdir) + "/")]
        if mounted:
            raise RuntimeError(f"{workdir} still has {len(mounted)} mounts (such as {mounted[0]}); not deleting it")
        shutil.rmtree(workdir)


def attached():
    """(work dir, state, nodes) of the running cluster: what load, link and status act on."""
    from cluster import running_cluster
    running = running_cluster()
    if not running:
        raise LookupError("no cluster runs: `ergobench cluster up` starts one")
    workdir, state = running
    return workdir, state, nodes_of(workdir, state)


def nodes_of(workdir, state):
    from node import Node
    return [Node(workdir, index) for index in range(1, state["spec"]["nodes"] + 1)]


def load_images(images):
    if not images:
        return
    from cluster import import_podman_image
    workdir, state, nodes = attached()
    hung = [node.name for node in nodes if node.is_hung()]
    if hung:
        raise UsageError(f"load: {', '.join(hung)} hung (`ergobench cluster fail`); `ergobench cluster recover` "
                         "first, so that every node holds the image")
    for image in images:
        import_podman_image(nodes, workdir, image)
        print(f"loaded {image} onto {state['spec']['nodes']} node(s)")


def status(_args):
    _, state, nodes = attached()
    from cluster import is_ready
    from control_plane import KUBECTL
    listed = subprocess.run([KUBECTL, f"--kubeconfig={state['kubeconfig']}", "get", "nodes", "-o", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = {item["metadata"]["name"]: is_ready(item) for item in json.loads(listed.stdout)["items"]} \
        if listed.returncode == 0 else {}
    print(f"{'NODE':<18} {'ADDRESS':<14} {'READY':<6} {'RATE':<10} {'DELAY':<8} STATE")
    for node in nodes:
        rate, delay = network.link_of(node.net)
        print(f"{node.name:<18} {node.net.address:<14} {str(ready.get(node.name, False)).lower():<6} "
              f"{network.format_rate(rate) if rate else 'unshaped':<10} "
              f"{network.format_delay(delay) if delay else '-':<8} {node_state(node)}")
    print(f"export KUBECONFIG={state['kubeconfig']}")
    return 0


def named_node(name, command):
    """The running cluster's node called `name` (ergobench-node2, or 2)."""
    nodes = {node.name: node for node in attached()[2]}
    node = nodes.get(name) or nodes.get(f"{network.NODE_PREFIX}{name}")
    if node is None:
        raise UsageError(f"{command}: no node {shown(name)}; the nodes are {', '.join(nodes)}")
    return node


def node_state(node):
    """What `cluster fail` left of a node: "running", or "hung", "link cut" or both."""
    words = []
    if node.is_hung():
        words.append("hung")
    if not network.link_is_up(node.net):
        words.append("link cut")
    return ", ".join(words) or "running"


def link(args):
    node = named_node(args.node, "link")
    if args.unshaped == bool(args.rate or args.delay):
        raise UsageError("link: give --rate and/or --delay, or --unshaped")
    rate = network.parse_rate(args.rate, "--rate") if args.rate else None
    delay = network.parse_delay(args.delay, "--delay") if args.delay else None
    network.shape_link(node.net, rate, delay, "--delay")
    print(f"{node.name}: link {network.format_rate(rate) if rate else 'unshaped'}"
          f"{', delay ' + network.format_delay(delay) if delay else ''}")
    return 0


def fail(args):
    """A node lost as a machine is lost: it hangs (kubelet, containerd, kube-proxy and its pods
    stop where they are) and its link is cut, so that nothing it had open is closed or reset.
    The control plane notices as it would a real node's loss: the node goes Unknown after the
    controller manager's node-monitor-grace-period (40 s)."""
    node = named_node(args.node, "fail")
    network.set_link_up(node.net, False)
    node.hang()
    print(f"{node.name}: hung, its link cut; `ergobench cluster recover {node.net.index}` brings it back")
    return 0


def recover_node(node):
    if node.is_hung():
        node.resume()
    if not network.link_is_up(node.net):
        network.set_link_up(node.net, True)


def recover(args):
    node = named_node(args.node, "recover")
    recover_node(node)
    print(f"{node.name}: running, its link up")
    return 0


def down(_args):
    from cluster import cluster_down
    workdirs = cluster_down()
    print(f"cluster down{': ' + ', '.join(workdirs) if workdirs else ' (none ran)'}")
    return 0


def parser():
    top = argparse.ArgumentParser(prog="ergobench cluster", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    p = commands.add_parser("up", help="start a cluster of N nodes on this machine")
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--link-rate", help="each node's link, e.g. 1Gbit (tc's units)")
    p.add_argument("--link-delay", help="each node's link, one way, e.g. 50us (needs netem in the kernel)")
    p.add_argument("--instance-type", help="node.kubernetes.io/instance-type of every node")
    p.add_argument("--region", help="topology.kubernetes.io/region of every node")
    p.add_argument("--zone", help="topology.kubernetes.io/zone of every node")
    p.add_argument("--accelerator", help="ergobench.io/accelerator of every node")
    p.add_argument("--label", action="append", default=[], metavar="KEY=VALUE", help="on every node")
    p.add_argument("--node-label", action="append", default=[], metavar="N:KEY=VALUE", help="on node N")
    p.add_argument("--image", action="append", default=[], help="a podman image to load onto every node")
    p.add_argument("--node-sysfs", metavar="DIR", help="DIR/ergobench-nodeN/sys is node N's sysfs for energy "
                   "(a host without RAPL, or fakes); point the chart's energyAgent.hostSysfs at DIR/sys")
    p.add_argument("--workdir", default=DEFAULT_WORKDIR, help="logs, certificates and volumes")
    p.set_defaults(run=up)
    p = commands.add_parser("status", help="the nodes, their links and the kubeconfig")
    p.set_defaults(run=status)
    p = commands.add_parser("load", help="put podman images onto every node")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.set_defaults(run=lambda args: load_images(args.images) or 0)
    p = commands.add_parser("link", help="change a node's link while the cluster runs")
    p.add_argument("node", help="ergobench-node2, or 2")
    p.add_argument("--rate")
    p.add_argument("--delay")
    p.add_argument("--unshaped", action="store_true")
    p.set_defaults(run=link)
    p = commands.add_parser("fail", help="a node hangs and its link is cut, as a lost machine")
    p.add_argument("node", help="ergobench-node2, or 2")
    p.set_defaults(run=fail)
    p = commands.add_parser("recover", help="a failed node runs again, its link up")
    p.add_argument("node", help="ergobench-node2, or 2")
    p.set_defaults(run=recover)
    p = commands.add_parser("down", help="stop the cluster and remove all it made")
    p.set_defaults(run=down)
    return top


def main(argv):
    args = parser().parse_args(argv)
    if os.geteuid() != 0:
        print("ergobench cluster: needs root (network namespaces, cgroups, containerd)", file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except (UsageError, InputError) as e:
        print(f"ergobench cluster: {e}", file=sys.stderr)
        return 2
    except LookupError as e:
        print(f"ergobench cluster: {e}", file=sys.stderr)
        return 3
    except (RuntimeError, AssertionError, subprocess.CalledProcessError) as e:
        print(f"ergobench cluster: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
