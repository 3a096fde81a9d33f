"""One node of `ergobench cluster`: containerd (Debian's, with runc and Debian's CNI plugins),
kubelet and kube-proxy in iptables mode, all in the node's network namespace (network.py), with
a root dir, a cgroup root and a containerd store of its own. The nodes share the host's
filesystem, so a hostPath volume holds the same files on every node, as a shared filesystem
does on a real cluster.

Images are imported into each node's containerd (k8s.io namespace) from an OCI archive; nothing
is pulled.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time

from network import CLUSTER_CIDR, HOST_ADDRESS, NODE_PREFIX, NodeAddress, netns_pids

HERE = os.path.dirname(os.path.abspath(__file__))
CNI_BRIDGE = "ebcni0"  # in the node's namespace: every node has its own
KUBELET_PORT = 10250
IMAGE_SOURCE_LABEL = "ergobench.io/source-id"
PAUSE_IMAGE = "localhost/ergobench/pause:3.4.1"
CGROUP_ROOT = "/sys/fs/cgroup"
# Where the kubelet keeps pods' logs (1.20 fixes both paths; KubeletConfiguration.podLogsDir
# came in 1.29). Each node binds its own folders there, in a mount namespace of its own.
LOG_DIRS = ("/var/log/pods", "/var/log/containers")


def cache_dir():
    return os.environ.get("ERGOBENCH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ergobench")


def cgroup_hierarchies():
    """The mount points of the cgroup hierarchies (v1: one per controller; v2: the one)."""
    with open("/proc/mounts") as f:
        mounts = [line.split() for line in f]
    return [m[1] for m in mounts if m[2] in ("cgroup", "cgroup2") and m[1].startswith(CGROUP_ROOT)]


def make_cgroup(name):
    """/<name> in every hierarchy, for the kubelet's --cgroup-root: each node's pods under its
    own, so that two kubelets never manage the same /kubepods. cpuset's needs its CPUs and
    memory nodes before anything can join it."""
    for hierarchy in cgroup_hierarchies():
        path = os.path.join(hierarchy, name)
        os.makedirs(path, exist_ok=True)
        for knob in ("cpuset.cpus", "cpuset.mems"):
            if os.path.exists(os.path.join(path, knob)):
                with open(os.path.join(hierarchy, knob)) as parent, open(os.path.join(path, knob), "w") as child:
                    child.write(parent.read())


FREEZER = os.path.join(CGROUP_ROOT, "freezer")
FROZEN_GROUP = "ergobench-frozen"  # under a node's freezer cgroup: its own processes, while it hangs


def freezer_state(name):
    """THAWED, FREEZING or FROZEN: node `name`'s freezer cgroup; None where it has none."""
    try:
        with open(os.path.join(FREEZER, name, "freezer.state")) as f:
            return f.read().strip()
    except FileNotFoundError:
        return None


def set_frozen(name, frozen):
    """Freezes or thaws the freezer cgroup of node `name`, and waits until the kernel says so."""
    want = "FROZEN" if frozen else "THAWED"
    with open(os.path.join(FREEZER, name, "freezer.state"), "w") as f:
        f.write(want)
    deadline = time.monotonic() + 10
    while freezer_state(name) != want:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name}'s cgroup is still {freezer_state(name)} 10 s after {want}")
        time.sleep(0.05)


def thaw_all_nodes():
    """Every node's freezer cgroup thawed: a frozen process does not die of SIGKILL until then."""
    for name in os.listdir(FREEZER) if os.path.isdir(FREEZER) else []:
        if re.fullmatch(rf"{NODE_PREFIX}\d+", name):
            set_frozen(name, False)


def remove_node_cgroups():
    """Every node's cgroup root, rmdir'ed deepest first: what the kubelet and runc made under it
    goes with it. One still holding a process stays."""
    for hierarchy in cgroup_hierarchies():
        for name in os.listdir(hierarchy):
            if not re.fullmatch(rf"{NODE_PREFIX}\d+", name):
                continue
            for directory, _, _ in sorted(os.walk(os.path.join(hierarchy, name)), key=lambda e: -e[0].count("/")):
                try:
                    os.rmdir(directory)
                except OSError:
                    pass


class Node:
    """Node `index` of the cluster in `workdir`. Spawning goes through `spawn(name, argv, env)`
    (the cluster's, which records each process so that `down` ends it whoever started it)."""

    def __init__(self, workdir, index, node_sysfs=None, host_sysfs=None):
        self.net = NodeAddress(index)
        self.name = self.net.name
        self.dir = os.path.abspath(os.path.join(workdir, "nodes", self.name))
        # Absolute: the shims carry the socket's path, which end_shims looks for.
        self.containerd_socket = os.path.join(self.dir, "containerd", "containerd.sock")
        # The image store outlives clusters: an image is imported once per build, per node.
        self.containerd_root = os.path.join(cache_dir(), "nodes", self.name, "containerd")
        self.node_sysfs = node_sysfs
        self.host_sysfs = host_sysfs  # mounts from under it come from node_sysfs/sys (runc_node_sysfs.py)

    def in_netns(self, argv):
        return self.net.in_netns(argv)

    def in_node(self, argv):
        """`argv` run in this node's network and mount namespaces: its containerd and kubelet,
        and through them its shims and containers."""
        return ["nsenter", f"--net=/run/netns/{self.net.netns}", f"--mount={self.mount_ns}", *argv]

    @property
    def mount_ns(self):
        return os.path.join(self.dir, "ns", "mnt")

    def log_dir(self, path):
        """The node's own folder that it sees at `path`, one of LOG_DIRS."""
        return os.path.join(self.dir, "log", os.path.basename(path))

    def make_mount_namespace(self):
        """The node's mount namespace: the host's, with LOG_DIRS bound to folders of the node's.
        Every kubelet's container GC deletes from /var/log/pods the folders of pods it does not
        run, once a minute: on one shared folder, each would delete the other nodes' pods' logs
        (`kubectl logs` of a pod that ended on node 1 fails once node 2's kubelet collects).
        Kept by binding it onto a file in a private mount (`ip netns` makes /run/netns one):
        under a shared mount the binding would propagate, which the kernel refuses. A slave of
        the host's mounts: what the host mounts later, the node sees; the node's own mounts (its
        containers' root filesystems, its pods' volumes) stay its own."""
        holder = os.path.dirname(self.mount_ns)
        if os.path.ismount(self.mount_ns):
            return
        os.makedirs(holder, exist_ok=True)
        if not os.path.ismount(holder):
            subprocess.run(["mount", "--bind", holder, holder], check=True)
            subprocess.run(["mount", "--make-private", holder], check=True)
        open(self.mount_ns, "a").close()
        subprocess.run(["unshare", f"--mount={self.mount_ns}", "--propagation", "slave", "true"], check=True)
        for path in LOG_DIRS:
            os.makedirs(path, exist_ok=True)
            os.makedirs(self.log_dir(path), exist_ok=True)
            subprocess.run(["nsenter", f"--mount={self.mount_ns}", "mount", "--bind", self.log_dir(path), path],
                           check=True)

    def hang(self):
        """The node stops where it is, as a machine whose kernel locked up: every process in its
        network namespace (its kubelet, containerd, kube-proxy and shims) and every pod under
        its cgroup root, in its freezer cgroup. Nothing of it runs, answers or closes a
        connection until `resume`."""
        frozen = os.path.join(FREEZER, self.name, FROZEN_GROUP)
        os.makedirs(frozen, exist_ok=True)
        for pid in netns_pids(self.net.netns):
            try:
                with open(os.path.join(frozen, "cgroup.procs"), "w") as f:
                    f.write(pid)
            except ProcessLookupError:
                pass  # ended meanwhile
        set_frozen(self.name, True)

    def resume(self):
        set_frozen(self.name, False)

    def is_hung(self):
        return freezer_state(self.name) not in (None, "THAWED")

    # --- containerd -----------------------------------------------------------------------
    def write_containerd_config(self):
        cni_conf = os.path.join(self.dir, "cni", "net.d")
        os.makedirs(cni_conf, exist_ok=True)
        with open(os.path.join(cni_conf, "10-ergobench.conflist"), "w") as f:
            # No masquerade: pods of other nodes and the host reach a pod at its own address.
            json.dump({"cniVersion": "0.4.0", "name": "ergobench", "plugins": [
                {"type": "bridge", "bridge": CNI_BRIDGE, "isGateway": True, "ipMasq": False, "hairpinMode": True,
                 "ipam": {"type": "host-local", "dataDir": os.path.join(self.dir, "cni", "ipam"),
                          "ranges": [[{"subnet": self.net.pod_cidr, "gateway": self.net.pod_gateway}]],
                          "routes": [{"dst": "0.0.0.0/0"}]}},
                {"type": "portmap", "capabilities": {"portMappings": True}}]}, f, indent=1)
        config = os.path.join(self.dir, "containerd", "config.toml")
        os.makedirs(os.path.dirname(config), exist_ok=True)
        runtime = os.path.join(HERE, "runc_node_sysfs.py") if self.node_sysfs else "runc"
        with open(config, "w") as f:
            f.write(f"""version = 2
root = "{self.containerd_root}"
state = "{os.path.join(self.dir, 'containerd', 'state')}"
[grpc]
  address = "{self.containerd_socket}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE_IMAGE}"
  # Root here may lack CAP_SYS_RESOURCE: runc could not lower a sandbox's oom_score_adj to -998.
  restrict_oom_score_adj = true
  # Pods' network namespaces under the node's dir, not /var/run/netns: unmounted with it, they
  # go even when no kubelet tore the sandboxes down (a stop, a killed run).
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "{runtime}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "{cni_conf}"
""")
        return config

    def start_containerd(self, spawn, wait_for, stop_process):
        config = self.write_containerd_config()
        os.makedirs(self.containerd_root, exist_ok=True)
        env = dict(os.environ, ERGOBENCH_NODE_SYSFS=self.node_sysfs) if self.node_sysfs else None
        if env and self.host_sysfs:
            env["ERGOBENCH_HOST_SYSFS"] = self.host_sysfs
        self.make_mount_namespace()
        argv = self.in_node(["containerd", "--config", config])
        spawn(f"{self.name}-containerd", argv, env)
        wait_for(lambda: self.ctr("version", check=False).returncode == 0, 30, f"{self.name}'s containerd")
        if self.remove_leftover_containers():
            # The CRI plugin keeps what it loaded at start, deleted or not: a kubelet shown those
            # containers races its own garbage collector for them, and 1.20 exits 255 when it
            # loses ("no PodsandBox found"). A restart loads the clean store.
            stop_process(f"{self.name}-containerd")
            spawn(f"{self.name}-containerd", argv, env)
            wait_for(lambda: self.ctr("version", check=False).returncode == 0, 30, f"{self.name}'s containerd")

    def ctr(self, *args, check=True, namespace="k8s.io"):
        result = subprocess.run(["ctr", "--address", self.containerd_socket, "--namespace", namespace, *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise RuntimeError(f"ctr {' '.join(args)} on {self.name} failed ({result.returncode}): {result.stderr}")
        return result

    def remove_leftover_containers(self):
        """Removes the containers of an earlier cluster that ended without teardown (a killed
        run); says whether there were any."""
        containers = self.ctr("containers", "list", "--quiet", check=False).stdout.split()  # none where it is down
        for container in containers:
            self.ctr("tasks", "kill", "--signal", "SIGKILL", container, check=False)
            for _ in range(20):
                if self.ctr("tasks", "delete", container, check=False).returncode == 0 or \
                        "not found" in self.ctr("tasks", "ps", container, check=False).stderr:
                    break
                time.sleep(0.2)
            self.ctr("containers", "delete", container, check=False)
        return bool(containers)

    def has_image(self, reference, source_id):
        listed = self.ctr("images", "list", f"labels.\"{IMAGE_SOURCE_LABEL}\"=={source_id}", check=False).stdout
        return reference in listed

    def import_image(self, reference, archive, source_id):
        """Imports the OCI archive as `reference`, labelled with where it came from. Unpacked
        under a name of its own, then renamed: importing straight over `reference` leaves the
        layers the old and new images share referenced by nothing while the new one unpacks,
        and containerd's garbage collector may delete them under it ("parent snapshot ... does
        not exist", containerd issue #3787)."""
        staging = f"{reference}-import-{source_id[:12]}"
        self.ctr("images", "import", "--index-name", staging, archive)
        self.ctr("images", "tag", "--force", staging, reference)
        self.ctr("images", "rm", staging)
        self.ctr("images", "label", reference, f"{IMAGE_SOURCE_LABEL}={source_id}")

    # --- kubelet and kube-proxy -----------------------------------------------------------
    def start_kubelet(self, spawn, bin_dir, kubeconfig, client_ca):
        root = os.path.join(self.dir, "kubelet")
        os.makedirs(root, exist_ok=True)
        make_cgroup(self.name)
        config = os.path.join(self.dir, "kubelet-config.json")
        with open(config, "w") as f:
            json.dump({
                "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                "address": self.net.address, "port": KUBELET_PORT,
                "healthzBindAddress": "127.0.0.1", "healthzPort": 10248, "readOnlyPort": 0,
                "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True},
                                   "x509": {"clientCAFile": client_ca}},
                "authorization": {"mode": "Webhook"},
                "cgroupDriver": "cgroupfs", "cgroupRoot": f"/{self.name}", "failSwapOn": False,
                "clusterDNS": [HOST_ADDRESS], "clusterDomain": "cluster.local", "resolvConf": "",
                # The nodes share one disk with the host: never evict for it, never collect images.
                "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%",
                                 "nodefs.inodesFree": "1%"},
                "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
                "serializeImagePulls": False, "volumePluginDir": os.path.join(root, "volume-plugins"),
            }, f, indent=1)
        spawn(f"{self.name}-kubelet", self.in_node([
            os.path.join(bin_dir, "kubelet"), f"--config={config}", f"--kubeconfig={kubeconfig}",
            f"--root-dir={root}", f"--cert-dir={os.path.join(root, 'pki')}",
            "--container-runtime=remote", f"--container-runtime-endpoint=unix://{self.containerd_socket}",
            f"--hostname-override={self.name}", f"--node-ip={self.net.address}", "--v=1"]))

    def start_kube_proxy(self, spawn, bin_dir, kubeconfig):
        config = os.path.join(self.dir, "kube-proxy-config.json")
        with open(config, "w") as f:
            json.dump({
                "apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration",
                "mode": "iptables", "clusterCIDR": CLUSTER_CIDR, "hostnameOverride": self.name,
                "bindAddress": self.net.address, "healthzBindAddress": "127.0.0.1:10256",
                "metricsBindAddress": "127.0.0.1:10249",
                "clientConnection": {"kubeconfig": kubeconfig},
                # Leave the host's conntrack table size alone.
                "conntrack": {"maxPerCore": 0},
            }, f, indent=1)
        spawn(f"{self.name}-kube-proxy", self.in_netns([os.path.join(bin_dir, "kube-proxy"), f"--config={config}",
                                                        "--v=1"]))

    def service_rules_ready(self):
        rules = subprocess.run(self.in_netns(["iptables-save", "-t", "nat"]), stdout=subprocess.PIPE,
                               text=True).stdout
        return "default/kubernetes:https cluster IP" in rules


def process_tree(pid):
    """`pid` and its descendants, parents before children."""
    children = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as f:
                children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
        except (OSError, IndexError):
            pass
    tree, stack = [], [pid]
    while stack:
        tree.append(stack.pop())
        stack.extend(children.get(tree[-1], []))
    return tree


def shims_of(containerd_socket):
    """The containerd-shim processes of the containerd listening at `containerd_socket`."""
    shims = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if os.path.basename(argv[0]).startswith("containerd-shim") and containerd_socket in argv:
            shims.append(int(entry))
    return shims


def end_shims(containerd_socket):
    """SIGKILLs the shims of the containerd at `containerd_socket` and their containers, a shim
    before its children so that it cannot start another, until none is left."""
    for _ in range(20):
        shims = shims_of(containerd_socket)
        if not shims:
            return
        for pid in [pid for shim in shims for pid in process_tree(shim)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def require_node_tools():
    needed = {"containerd": "containerd", "ctr": "containerd", "runc": "runc", "dnsmasq": "dnsmasq-base",
              "iptables-save": "iptables", "buildah": "buildah", "nsenter": "util-linux", "tc": "iproute2",
              "/usr/lib/cni/bridge": "containernetworking-plugins"}
    missing = sorted({package for tool, package in needed.items() if not shutil.which(tool)})
    if missing:
        raise RuntimeError(f"a node needs {', '.join(missing)}: run scripts/install-deps.sh --tests")
