"""A real Kubernetes cluster of N nodes on this machine, as `kind create cluster` gives users, and
what `ergobench cluster up` starts (cluster_command.py). The control plane of control_plane.py
and kube-scheduler run on the host; each node (node.py) is containerd, kubelet and kube-proxy in
a network namespace of its own, linked to the host's switch bridge by a link whose rate and
delay tc sets (network.py). Every Kubernetes binary is built from Debian's `kubernetes` source
package (build-kubernetes.sh). dnsmasq on the switch stands in for the DNS add-on
(cluster_dns.py feeds it from the API); local_path_provisioner.py gives PersistentVolumes, as
kind's local-path-provisioner does. Nothing is pulled: images are imported from podman's store.

Network namespaces rather than node containers (kind's way): a kubelet in a container needs a
cgroup namespace and a writable cgroupfs, and nested containerd an overlayfs inside overlayfs; a
kubelet in a network namespace needs neither, shares the host's filesystem and cgroups (each node
under a cgroup root of its own), and its network is a real one: its own addresses, routes,
iptables and a link whose rate the kernel enforces. That is what the benchmarks measure.

    with Cluster(workdir, ClusterSpec(nodes=3, link_rate=1e9)) as cluster:
        cluster.kubectl("get", "nodes")

One cluster at a time owns the machine (the switch, the node namespaces, the lock in the cache
dir). Needs root, cgroup v1 or v2 with the cgroupfs driver, and br_netfilter.
"""

import concurrent.futures
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, HERE)

import network  # noqa: E402
from control_plane import ControlPlane, kube_bin_dir, write_kubeconfig  # noqa: E402
from network import HOST_ADDRESS  # noqa: E402
from node import (PAUSE_IMAGE, Node, cache_dir, end_shims, remove_node_cgroups, require_node_tools,  # noqa: E402
                  thaw_all_nodes)

FIRST_NODE = f"{network.NODE_PREFIX}1"
STATE_FILE = "cluster.json"
# Well-known node labels, set by options of `ergobench cluster up`: cost by instance type, and
# the systems `ergobench report` tells apart.
LABEL_OPTIONS = {"instance_type": "node.kubernetes.io/instance-type", "region": "topology.kubernetes.io/region",
                 "zone": "topology.kubernetes.io/zone", "accelerator": "ergobench.io/accelerator"}


def process_start_time(pid):
    """Field 22 of /proc/<pid>/stat, or None for a process that is gone: ended, or a zombie
    (where the machine's init does not reap, what a cluster killed leaves is one)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields[19]


def unmount_under(directory):
    with open("/proc/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[1].startswith(directory + "/")]
    for mount in sorted(mounts, reverse=True):
        subprocess.run(["umount", "-l", mount], stderr=subprocess.DEVNULL)


def lock_path():
    return os.path.join(cache_dir(), "cluster.lock")


def read_lock(lock):
    lock.seek(0)
    return [line.split(maxsplit=1) for line in lock.read().splitlines() if " " in line]


def hold_the_machine():
    """The lock file, open and held: one cluster at a time owns the machine."""
    os.makedirs(cache_dir(), exist_ok=True)
    lock = open(lock_path(), "a+")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def end_owner(lock):
    """Ends the cluster the held lock names (end_cluster) and clears it; the work dirs it named."""
    lines = read_lock(lock)
    end_cluster(lines)
    lock.truncate(0)
    return [workdir for first, workdir in lines if first == "workdir"]


def is_ready(node):
    """Whether a Node object of the API says Ready."""
    return any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions", []))


def end_cluster(lines):
    """Ends what the lock file's `lines` name and everything a cluster leaves: its processes
    ("pid start-time", so that a reused pid is left alone; a hung node's thawed first), then its nodes' pods (the shims,
    parents before children, until none is left), its mounts (the pods' network namespaces
    among them), the node namespaces and the switch, and the nodes' cgroups."""
    thaw_all_nodes()
    for first, second in lines:
        if first != "workdir" and process_start_time(first) == second:
            try:
                os.kill(int(first), signal.SIGKILL)
            except ProcessLookupError:
                pass
    workdirs = [workdir for first, workdir in lines if first == "workdir"]
    for workdir in workdirs:
        nodes = os.path.join(workdir, "nodes")
        for name in (os.listdir(nodes) if os.path.isdir(nodes) else []):
            end_shims(os.path.join(nodes, name, "containerd", "containerd.sock"))
        unmount_under(workdir)
    network.remove_all()
    remove_node_cgroups()


def import_image(nodes, workdir, reference, archive_writer, source_id):
    """Imports `reference` into every node that does not hold it from the same source: the
    archive written once, the nodes importing it side by side."""
    missing = [node for node in nodes if not node.has_image(reference, source_id)]
    if not missing:
        return
    archive = os.path.join(workdir, "image.tar")
    archive_writer(archive)
    try:
        with concurrent.futures.ThreadPoolExecutor(len(missing)) as pool:
            for done in [pool.submit(node.import_image, reference, archive, source_id) for node in missing]:
                done.result()
    finally:
        os.unlink(archive)


def import_podman_image(nodes, workdir, local_name):
    """A podman image (`ergobench-runner:0.1.0`) under the name a pod spec's short name means to
    the kubelet (`docker.io/library/ergobench-runner:0.1.0`), as `kind load` does."""
    env_sh = os.path.join(ROOT, "images/env.sh")
    podman = ["bash", "-c", 'source "$0"; exec podman "$@"', env_sh] if os.path.exists(env_sh) else ["podman"]
    inspected = subprocess.run(podman + ["image", "inspect", "--format", "{{.Id}}", local_name],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if inspected.returncode != 0:
        raise network.InputError(f"image {network.shown(local_name)}: podman has no such image "
                                 f"({inspected.stderr.strip()})")
    reference = local_name if "/" in local_name.split(":")[0] else "docker.io/library/" + local_name
    import_image(nodes, workdir, reference, lambda archive: subprocess.run(
        podman + ["save", "--quiet", "--format", "oci-archive", "-o", archive, local_name], check=True),
        inspected.stdout.strip())


class ClusterSpec:
    """What `up` was asked for: node count, the links, and each node's labels."""

    def __init__(self, nodes=1, link_rate=None, link_delay=None, labels=None, node_sysfs=None):
        network.NodeAddress(nodes)  # the count in range
        self.nodes = nodes
        self.link_rate = link_rate
        self.link_delay = link_delay
        self.labels = labels or {}  # {index: {key: value}}
        self.node_sysfs = node_sysfs  # a folder: sys/ as the host's, ergobench-nodeN/sys each node's
        for index in self.labels:
            if not 1 <= index <= nodes:
                raise network.InputError(f"--node-label: node {index} is outside 1 to {nodes}")

    def to_json(self):
        return {"nodes": self.nodes, "linkRate": self.link_rate, "linkDelay": self.link_delay,
                "labels": {str(index): labels for index, labels in sorted(self.labels.items())},
                "nodeSysfs": self.node_sysfs}


class Cluster(ControlPlane):
    """`node_sysfs`: a folder holding a fake sys/ (tests' FakeRapl) that every workload
    container of a node sees as its sysfs for energy (runc_node_sysfs.py), one path for every
    node or {index: path}; this VM has no RAPL. `spec.node_sysfs` gives each node its own,
    the energy agent's included (`ergobench cluster up --node-sysfs`)."""

    def __init__(self, workdir, spec=None, node_sysfs=None):
        require_node_tools()
        super().__init__(workdir, HOST_ADDRESS)
        self.spec = spec or ClusterSpec()
        self.bin_dir = kube_bin_dir()
        self.node_server = f"https://{HOST_ADDRESS}:{self.api_port}"  # what a node reaches
        if self.spec.node_sysfs:
            node_sysfs = {index: os.path.join(self.spec.node_sysfs, f"{network.NODE_PREFIX}{index}")
                          for index in range(1, self.spec.nodes + 1)}
        host_sysfs = os.path.join(self.spec.node_sysfs, "sys") if self.spec.node_sysfs else None
        self.nodes = [Node(workdir, index, node_sysfs.get(index) if isinstance(node_sysfs, dict) else node_sysfs,
                           host_sysfs) for index in range(1, self.spec.nodes + 1)]
        self.pki.issue("kube-scheduler", "/CN=system:kube-scheduler", None, "clientAuth")
        self.pki.issue("kube-proxy", "/CN=system:kube-proxy", None, "clientAuth")
        self.pki.issue("apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client", None,
                       "clientAuth")
        for node in self.nodes:
            self.pki.issue(node.name, f"/O=system:nodes/CN=system:node:{node.name}", None, "clientAuth")
        self.lock = None
        self.started = False

    def client_kubeconfig(self, name, server):
        return write_kubeconfig(os.path.join(self.workdir, f"{name}.kubeconfig"), server, self.pki.path("ca.crt"),
                                self.pki.path(f"{name}.crt"), self.pki.path(f"{name}.key"))

    # --- the control plane, for nodes -----------------------------------------------------
    def apiserver_node_flags(self):
        p = self.pki.path
        return [f"--kubelet-client-certificate={p('apiserver-kubelet-client.crt')}",
                f"--kubelet-client-key={p('apiserver-kubelet-client.key')}",
                "--kubelet-preferred-address-types=InternalIP"]

    def controllers(self):
        # Node lifecycle removes the not-ready taint the kubelet registers with, and evicts the
        # pods of a node that stops answering.
        return "*,-nodeipam,-bootstrapsigner,-tokencleaner"

    def start_scheduler(self):
        kubeconfig = self.client_kubeconfig("kube-scheduler", self.server)
        self._spawn("kube-scheduler", [
            os.path.join(self.bin_dir, "kube-scheduler"), f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
            "--leader-elect=false", "--port=0", "--secure-port=0", "--bind-address=127.0.0.1", "--v=1"])

    # --- images -----------------------------------------------------------------------------
    def import_pause_image(self):
        pause = os.path.join(self.bin_dir, "pause")

        def write(archive):
            container = subprocess.run(["buildah", "from", "scratch"], check=True, stdout=subprocess.PIPE,
                                       text=True).stdout.strip()
            try:
                subprocess.run(["buildah", "copy", container, pause, "/pause"], check=True, stdout=subprocess.DEVNULL)
                subprocess.run(["buildah", "config", "--entrypoint", '["/pause"]', "--user", "65535:65535", container],
                               check=True)
                subprocess.run(["buildah", "commit", "--quiet", container, f"oci-archive:{archive}"], check=True,
                               stdout=subprocess.DEVNULL)
            finally:
                subprocess.run(["buildah", "rm", container], stdout=subprocess.DEVNULL)
        import_image(self.nodes, self.workdir, PAUSE_IMAGE, write, str(int(os.stat(pause).st_mtime)))

    def import_podman_image(self, local_name):
        import_podman_image(self.nodes, self.workdir, local_name)

    # --- nodes ------------------------------------------------------------------------------
    def start_nodes(self):
        for node in self.nodes:
            node.start_containerd(self._spawn, self.wait_for, self.stop_process)
        self.import_pause_image()
        proxy_kubeconfig = self.client_kubeconfig("kube-proxy", self.node_server)
        for node in self.nodes:
            self.start_kubelet(node.net.index)
            node.start_kube_proxy(self._spawn, self.bin_dir, proxy_kubeconfig)

    def start_kubelet(self, index=1):
        """Node `index`'s kubelet (process `ergobench-nodeN-kubelet`); again after a stop_process."""
        node = self.nodes[index - 1]
        node.start_kubelet(self._spawn, self.bin_dir, self.client_kubeconfig(node.name, self.node_server),
                           self.pki.path("ca.crt"))

    def start_dns(self):
        hosts = os.path.join(self.workdir, "cluster-dns.hosts")
        open(hosts, "w").close()
        pid_file = os.path.join(self.workdir, "dnsmasq.pid")
        self._spawn("dnsmasq", [
            "dnsmasq", "--keep-in-foreground", "--log-facility=-", "--user=root", f"--pid-file={pid_file}",
            "--no-resolv", "--no-hosts", f"--addn-hosts={hosts}", "--local=/cluster.local/", "--local-ttl=1",
            f"--listen-address={HOST_ADDRESS}", "--bind-interfaces"])
        self._spawn("cluster-dns", [sys.executable, os.path.join(HERE, "cluster_dns.py"), "--kubeconfig",
                                    self.admin_kubeconfig, "--hosts", hosts, "--pid-file", pid_file])

    def start_storage(self):
        """The default StorageClass, served by local_path_provisioner.py under the work dir."""
        root = os.path.join(self.workdir, "volumes")
        os.makedirs(root, exist_ok=True)
        self._spawn("local-path", [sys.executable, os.path.join(HERE, "local_path_provisioner.py"), "--kubeconfig",
                                   self.admin_kubeconfig, "--root", root])
        self.kubectl("apply", "-f", "-", input=json.dumps(STORAGE_CLASS))

    def check_running(self):
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                log = os.path.join(self.workdir, name + ".log")
                with open(log, errors="replace") as f:
                    # A Go component's fatal line comes before its goroutine dump: name it.
                    lines = f.read().splitlines()
                fatal = [line for line in lines if re.match(r"F\d{4} |panic:", line)] or lines[-5:]
                raise RuntimeError(f"{name} exited ({proc.returncode}): {' | '.join(fatal[:3])}; see {log}")

    def nodes_ready(self):
        """The names of the nodes Ready and untainted."""
        self.check_running()
        ready = set()
        for node in self.get_json("nodes")["items"]:
            if is_ready(node) and not node["spec"].get("taints"):
                ready.add(node["metadata"]["name"])
        return ready

    def label_nodes(self):
        for node in self.nodes:
            labels = self.spec.labels.get(node.net.index, {})
            if labels:
                self.kubectl("label", "node", node.name, "--overwrite", *[f"{k}={v}" for k, v in labels.items()])

    def set_link(self, index, rate=None, delay=None):
        network.shape_link(self.nodes[index - 1].net, rate, delay)

    # --- the machine ------------------------------------------------------------------------
    def take_the_machine(self):
        """One cluster at a time owns the machine. What an earlier one left when it died without
        teardown, or a cluster `up` left running, is ended first (end_cluster)."""
        self.lock = hold_the_machine()
        end_owner(self.lock)
        self.lock.write(f"workdir {os.path.abspath(self.workdir)}\n")
        self.lock.flush()

    def _spawn(self, name, argv, env=None):
        super()._spawn(name, argv, env)
        pid = str(self.procs[name].pid)
        self.lock.write(f"{pid} {process_start_time(pid)}\n")
        self.lock.flush()
        if self.started:  # a process restarted since (a kubelet, the API server)
            self.write_state()

    def write_state(self):
        """What `ergobench cluster` commands attach to (running_cluster): the spec, the kubeconfig,
        and the processes, each alive only while its pid has its start time."""
        with open(os.path.join(self.workdir, STATE_FILE), "w") as f:
            json.dump({"spec": self.spec.to_json(), "kubeconfig": os.path.abspath(self.admin_kubeconfig),
                       "processes": {name: [str(proc.pid), process_start_time(proc.pid)]
                                     for name, proc in self.procs.items()}}, f, indent=1)

    def start(self):
        self.take_the_machine()
        network.add_switch()
        for node in self.nodes:
            network.add_node(node.net, [other.net for other in self.nodes])
        if self.spec.link_rate or self.spec.link_delay:
            for node in self.nodes:
                self.set_link(node.net.index, self.spec.link_rate, self.spec.link_delay)
        super().start()
        self.start_scheduler()
        self.start_nodes()
        self.start_dns()
        names = {node.name for node in self.nodes}
        self.wait_for(lambda: names <= self.nodes_ready(), 120, f"{len(names)} nodes Ready and untainted",
                      lambda: f"ready: {sorted(self.nodes_ready())}")
        self.wait_for(lambda: all(node.service_rules_ready() for node in self.nodes), 60,
                      "kube-proxy's rules for the kubernetes Service on every node")
        self.label_nodes()
        self.start_storage()
        self.write_state()
        self.started = True
        return self

    def stop(self):
        # Pods first, while the kubelets can still stop them; then the nodes, then the control plane.
        if any(name.endswith("-kubelet") for name in self.procs) and "kube-apiserver" in self.procs:
            self.kubectl("delete", "pods", "--all", "--all-namespaces", "--grace-period=0", "--force",
                         "--timeout=30s", check=False)
        for name in ["local-path", "cluster-dns", "dnsmasq", "kube-scheduler"] + \
                [f"{node.name}-{part}" for node in self.nodes for part in ("kube-proxy", "kubelet")]:
            self.stop_process(name)
        for node in self.nodes:
            if f"{node.name}-containerd" in self.procs:
                node.remove_leftover_containers()
                self.stop_process(f"{node.name}-containerd")
        super().stop()
        if self.lock:
            # The kubelet's volume mounts (tmpfs secrets, projected tokens), the sandboxes'
            # /dev/shm and network namespaces; the node namespaces, the switch and the cgroups.
            end_owner(self.lock)
            self.lock.close()
            self.lock = None


def cluster_down():
    """Ends the cluster that owns the machine, whoever started it: `ergobench cluster down`."""
    with hold_the_machine() as lock:
        return end_owner(lock)


def running_cluster():
    """(workdir, state) of the cluster that owns the machine with every process it started
    alive, or None."""
    if not os.path.exists(lock_path()):
        return None
    with open(lock_path()) as lock:
        workdirs = [workdir for first, workdir in read_lock(lock) if first == "workdir"]
    try:
        with open(os.path.join(workdirs[0], STATE_FILE)) as f:
            state = json.load(f)
    except (IndexError, OSError, ValueError):
        return None
    alive = all(process_start_time(pid) == start for pid, start in state["processes"].values())
    return (workdirs[0], state) if alive else None


# Dynamic PersistentVolumes, writable by non-root pods (local_path_provisioner.py): hostPath
# folders on the filesystem every node shares.
STORAGE_CLASS = {
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "ergobench.io/local-path", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
}
