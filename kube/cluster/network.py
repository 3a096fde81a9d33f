"""The network of `ergobench cluster`: every node in a network namespace of its own, joined to
the host by a veth link whose host end is a port of one bridge, the switch. The host has the
switch's first address, where the API server and the cluster DNS answer; node i has address
NODE_NET.(10+i), pod CIDR 10.244.i.0/24 behind its own CNI bridge, and a route to every other
node's pods through that node. A link's rate (and, where the kernel has netem, its delay) is set
with tc on both ends of the node's veth, so that the link is the bottleneck, as on a real
network, and can change while the cluster runs.

The functions that decide (names, addresses, rates, tc arguments) are pure and tested without
root; those that act run `ip`, `tc` and `sysctl` and need root.
"""

import os
import re
import signal
import subprocess
import time

SWITCH = "ebsw0"
NODE_NET = "10.250.0"  # /24: the host .1, node i .(10+i)
HOST_ADDRESS = f"{NODE_NET}.1"
CLUSTER_CIDR = "10.244.0.0/16"
NODE_PREFIX = "ergobench-node"
MAX_NODES = 200  # addresses .11 to .210 of NODE_NET, pod CIDRs 10.244.1-200.0/24
FORWARD_COMMENT = "ergobench cluster switch"
# tbf's queue: a packet waits at most this long for tokens, then is dropped, as a switch's
# buffer overflows.
TBF_LATENCY = "50ms"

_RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12}
_DELAY_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


class InputError(ValueError):
    """Bad input or a kernel that lacks a feature: the message names the option."""


def shown(text):
    """`text` as an error message quotes it: at most 40 characters of it."""
    return repr(text if text is None or len(text) <= 40 else text[:40] + "...")


def _parse_quantity(text, units, option, example):
    """A number and one of `units` (any case), scaled: what a user writes on tc's command line."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]+)\s*", text or "")
    unit = match and units.get(match.group(2).lower())
    if not unit:
        raise InputError(f"{option}: {shown(text)} is not {example}")
    return float(match.group(1)) * unit


def parse_rate(text, option="--link-rate"):
    """'7.5Gbit' -> 7.5e9 bits per second (tc's units: bit, kbit, mbit, gbit, tbit)."""
    rate = _parse_quantity(text, _RATE_UNITS, option, "a rate such as 500Mbit, 1Gbit or 7.5Gbit")
    if not 8e3 <= rate <= 400e9:
        raise InputError(f"{option}: {shown(text)} is outside 8kbit to 400Gbit")
    return rate


def parse_delay(text, option="--link-delay"):
    """'50us' -> 5e-05 seconds (units s, ms, us)."""
    delay = _parse_quantity(text, _DELAY_UNITS, option, "a delay such as 50us or 2ms")
    if delay > 10:
        raise InputError(f"{option}: {shown(text)} is longer than 10s")
    return delay


def format_rate(bits_per_second):
    for unit, scale in (("Gbit", 1e9), ("Mbit", 1e6), ("kbit", 1e3)):
        if bits_per_second >= scale:
            return f"{bits_per_second / scale:g}{unit}"
    return f"{bits_per_second:g}bit"


def format_delay(seconds):
    return f"{seconds * 1e6:g}us"


TBF_BUCKET_SECONDS = 0.004
MIN_TBF_BURST = 2 * 1514  # two full frames


def tbf_burst_bytes(bits_per_second):
    """The token bucket: 4 ms at the rate, at least two frames. The timer that refills it is
    coarse in a VM; a smaller bucket caps the link below its rate (bench/link_rate.py: 0.5 ms
    gave 0.72 of 1 Gbit/s, 4 ms gave 1.00). A larger one is a link that is faster than its rate
    after a pause: a whole bucket passes at once. A 64 KiB floor let fmnist's 82 KB gradients
    through a 20 Mbit/s link at 2.7 times its rate (its step's compute refilled the bucket).
    So a transfer after an idle link takes up to TBF_BUCKET_SECONDS less than its bytes at the
    rate; one that keeps the link busy, none."""
    return max(MIN_TBF_BURST, int(bits_per_second / 8 * TBF_BUCKET_SECONDS))


def shaping_commands(device, rate=None, delay=None):
    """The tc commands that give `device`'s egress `rate` (bits/s) and `delay` (s): netem for the
    delay at the root with tbf under it, or tbf alone; none of either: the link unshaped. The
    first command removes what was there, and may fail (nothing was)."""
    commands = [["tc", "qdisc", "del", "dev", device, "root"]]
    tbf = ["tbf", "rate", f"{int(rate)}bit", "burst", str(tbf_burst_bytes(rate)), "latency", TBF_LATENCY] \
        if rate else None
    if delay:
        commands.append(["tc", "qdisc", "add", "dev", device, "root", "handle", "1:", "netem", "delay",
                         f"{int(round(delay * 1e6))}us", "limit", "100000"])
        if tbf:
            commands.append(["tc", "qdisc", "add", "dev", device, "parent", "1:1", "handle", "10:", *tbf])
    elif tbf:
        commands.append(["tc", "qdisc", "add", "dev", device, "root", "handle", "1:", *tbf])
    return commands


class NodeAddress:
    """Where node `index` (1-based) lives on the network."""

    def __init__(self, index):
        if not 1 <= index <= MAX_NODES:
            raise InputError(f"--nodes: {index} is outside 1 to {MAX_NODES}")
        self.index = index
        self.name = f"{NODE_PREFIX}{index}"
        self.netns = self.name
        self.host_port = f"ebsw0p{index}"  # the switch's port; under 16 characters
        self.device = "eth0"
        self.address = f"{NODE_NET}.{10 + index}"
        self.pod_cidr = f"10.244.{index}.0/24"
        self.pod_gateway = f"10.244.{index}.1"

    def in_netns(self, argv):
        """`argv` run in this node's network namespace (nsenter: `ip netns exec` remounts /sys,
        and the kubelet then finds no cgroup mounts)."""
        return ["nsenter", f"--net=/run/netns/{self.netns}", *argv]

    def run(self, *argv, check=True):
        return _run(self.in_netns(list(argv)), check)


def _run(argv, check=True):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def forward_rule():
    """Bridged traffic between nodes passes the host's FORWARD chain (br_netfilter), whose policy
    may be DROP (Docker sets it): accept the switch's own."""
    return ["FORWARD", "-i", SWITCH, "-o", SWITCH, "-m", "comment", "--comment", FORWARD_COMMENT, "-j", "ACCEPT"]


def add_switch():
    _run(["ip", "link", "add", SWITCH, "type", "bridge"])
    _run(["ip", "addr", "add", f"{HOST_ADDRESS}/24", "dev", SWITCH])
    _run(["ip", "link", "set", SWITCH, "up"])
    if _run(["iptables", "-C", *forward_rule()], check=False).returncode != 0:
        _run(["iptables", "-I", *forward_rule()])


def add_node(node, all_nodes):
    """The node's namespace, its link to the switch, and routes to every other node's pods,
    on the node and on the host (which reaches pods: the API server, the tests)."""
    _run(["ip", "netns", "add", node.netns])
    _run(["ip", "link", "add", node.host_port, "type", "veth", "peer", "name", node.device, "netns", node.netns])
    _run(["ip", "link", "set", node.host_port, "master", SWITCH, "up"])
    node.run("ip", "addr", "add", f"{node.address}/24", "dev", node.device)
    node.run("ip", "link", "set", node.device, "up")
    node.run("ip", "link", "set", "lo", "up")
    node.run("ip", "route", "add", "default", "via", HOST_ADDRESS)
    # A fresh namespace forwards nothing; the pods' bridge must pass through iptables (Services).
    node.run("sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
    node.run("sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1", check=False)
    for other in all_nodes:
        if other.index != node.index:
            node.run("ip", "route", "add", other.pod_cidr, "via", other.address)
    _run(["ip", "route", "replace", node.pod_cidr, "via", node.address])


def shape_link(node, rate=None, delay=None, delay_option="--link-delay"):
    """Both directions of the node's link: its own egress, and the switch port's towards it.
    A delay is refused before anything changes where the kernel has no netem."""
    if delay and node.run("tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1us",
                          check=False).returncode != 0:
        raise InputError(f"{delay_option}: this kernel has no netem (sch_netem); a link can have a rate "
                         "here, not a delay")
    node.run("tc", "qdisc", "del", "dev", "lo", "root", check=False)
    for device, where in ((node.device, node.in_netns), (node.host_port, list)):
        commands = shaping_commands(device, rate, delay)
        _run(where(commands[0]), check=False)
        for command in commands[1:]:
            _run(where(command))


def set_link_up(node, up):
    """Cuts the node's link at the switch (`up` False), as a pulled cable: nothing crosses it
    either way, and nothing is told; or joins it again."""
    _run(["ip", "link", "set", node.host_port, "up" if up else "down"])


def link_is_up(node):
    flags = re.search(r"<([^>]*)>", _run(["ip", "-o", "link", "show", node.host_port]).stdout)
    return "UP" in flags.group(1).split(",")


def netns_pids(netns):
    """The pids of the processes in network namespace `netns` (a name under /run/netns)."""
    return _run(["ip", "netns", "pids", netns], check=False).stdout.split()


def link_of(node):
    """(rate bits/s or None, delay s or None) as tc has it on the node's egress."""
    out = node.run("tc", "qdisc", "show", "dev", node.device).stdout
    rate = re.search(r"tbf .*?rate (\d+(?:\.\d+)?)([KMGT]?)bit", out)
    delay = re.search(r"netem .*?delay (\d+(?:\.\d+)?)(us|ms|s)\b", out)
    scale = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    return (float(rate.group(1)) * scale[rate.group(2)] if rate else None,
            float(delay.group(1)) * _DELAY_UNITS[delay.group(2)] if delay else None)


def remove_all():
    """Every node namespace, the switch and its FORWARD rule: what any cluster left. A process
    still in a node's namespace (a node's pods are ended first; a shell someone entered it with)
    is killed, since a namespace lives as long as one process is in it. The switch's ports go
    by name, and with each its peer, even where a namespace outlived its name."""
    for netns in (os.listdir("/run/netns") if os.path.isdir("/run/netns") else []):
        if re.fullmatch(rf"{NODE_PREFIX}\d+", netns):
            for pid in netns_pids(netns):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            _run(["ip", "netns", "delete", netns], check=False)
    for port in switch_ports():
        _run(["ip", "link", "delete", port], check=False)
    _run(["ip", "link", "delete", SWITCH], check=False)
    while _run(["iptables", "-D", *forward_rule()], check=False).returncode == 0:
        pass
    # The kernel dismantles a namespace in the background: a new node's link of the same name
    # cannot be made before its old one is gone.
    deadline = time.monotonic() + 30
    while switch_ports():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the switch's ports {switch_ports()} are still there 30 s after their deletion")
        time.sleep(0.1)


def switch_ports():
    links = _run(["ip", "-o", "link", "show"]).stdout
    return re.findall(rf"^\d+: ({SWITCH}p\d+)[@:]", links, re.M)
