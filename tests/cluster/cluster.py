"""A real one-node Kubernetes cluster on this machine, as kind gives users: the control plane
of control_plane.py, kube-scheduler, and a node made of containerd (Debian's, with runc and
Debian's CNI plugins), kubelet and kube-proxy in iptables mode, every Kubernetes binary built
from Debian's `kubernetes` source package (build-kubernetes.sh). dnsmasq stands in for the DNS
add-on (cluster_dns.py feeds it from the API); local_path_provisioner.py gives PersistentVolumes,
as kind's local-path-provisioner does. Images are imported into containerd's k8s.io namespace from podman's
store (images/build.sh); nothing is pulled.

    with Cluster(workdir) as cluster:
        cluster.kubectl("get", "nodes")

`python3 tests/cluster/cluster.py` keeps one up until Ctrl-C and prints its KUBECONFIG.

Needs root, cgroup v1 or v2 with the cgroupfs driver, and br_netfilter (bridged pod traffic
through iptables, for Services). Logs of every component are in the work dir.
"""

import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, HERE)

from control_plane import ControlPlane, free_port, kube_bin_dir, write_kubeconfig  # noqa: E402

NODE_NAME = "ergobench-node"
# Not 10.88.0.0/16: podman's default network owns that route on machines that have podman.
POD_SUBNET = "10.244.0.0/24"
POD_GATEWAY = "10.244.0.1"  # the bridge's address, where dnsmasq answers as the cluster DNS
BRIDGE = "ebcni0"
CACHE = os.path.join(os.environ.get("ERGOBENCH_CACHE_DIR")
                     or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ergobench"))
# containerd's image store outlives clusters: the runner image is imported once per build.
CONTAINERD_ROOT = os.path.join(CACHE, "containerd")
IMAGE_SOURCE_LABEL = "ergobench.io/source-id"


def node_ip():
    """The address of the default route: what the node registers and pods reach the API at."""
    out = subprocess.run(["ip", "-j", "route", "get", "192.0.2.255"], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    return json.loads(out)[0]["prefsrc"]


def process_start_time(pid):
    """Field 22 of /proc/<pid>/stat, or None for a process that is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


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


def remove_cni_nat_rules():
    """Removes the CNI plugins' NAT rules (portmap's hostPort DNAT, bridge's masquerade) that
    pods force-deleted with their cluster left behind: the next cluster reuses the pod
    addresses, and a stale hostPort rule earlier in the chain sends its traffic to whichever
    pod now has the old address."""
    rules = subprocess.run(["iptables-save", "-t", "nat"], check=True, stdout=subprocess.PIPE, text=True).stdout
    kept = [line for line in rules.splitlines() if not re.search(r"(^:|-A |-j )CNI-", line)]
    if len(kept) != len(rules.splitlines()):
        subprocess.run(["iptables-restore"], input="\n".join(kept) + "\n", check=True, text=True)


def unmount_under(directory):
    with open("/proc/mounts") as f:
        mounts = [line.split()[1] for line in f if line.split()[1].startswith(directory + "/")]
    for mount in sorted(mounts, reverse=True):
        subprocess.run(["umount", "-l", mount], stderr=subprocess.DEVNULL)


def require_node_tools():
    needed = {"containerd": "containerd", "ctr": "containerd", "runc": "runc", "dnsmasq": "dnsmasq-base",
              "iptables-save": "iptables", "buildah": "buildah", "/usr/lib/cni/bridge": "containernetworking-plugins"}
    missing = sorted({package for tool, package in needed.items() if not shutil.which(tool)})
    if missing:
        raise RuntimeError(f"the node needs {', '.join(missing)}: run scripts/install-deps.sh --tests")


class Cluster(ControlPlane):
    """`node_sysfs`: a folder holding a fake sys/ (tests' FakeRapl) that every workload
    container sees as its sysfs for energy (runc_node_sysfs.py); this VM has no RAPL."""

    def __init__(self, workdir, node_sysfs=None):
        require_node_tools()
        super().__init__(workdir, node_ip())
        self.node_sysfs = node_sysfs
        self.bin_dir = kube_bin_dir()
        self.kubelet_port, self.kubelet_healthz_port = free_port(), free_port()
        for name, subject in (("kubelet", f"/O=system:nodes/CN=system:node:{NODE_NAME}"),
                              ("kube-scheduler", "/CN=system:kube-scheduler"),
                              ("kube-proxy", "/CN=system:kube-proxy"),
                              ("apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client")):
            self.pki.issue(name, subject, None, "clientAuth")
            write_kubeconfig(os.path.join(workdir, f"{name}.kubeconfig"), self.server, self.pki.path("ca.crt"),
                             self.pki.path(f"{name}.crt"), self.pki.path(f"{name}.key"))
        # Absolute: the shims carry the socket's path, which take_the_node looks for.
        self.containerd_dir = os.path.abspath(os.path.join(workdir, "containerd"))
        self.containerd_socket = os.path.join(self.containerd_dir, "containerd.sock")
        self.lock = None

    # --- the control plane, for a node ----------------------------------------------------
    def apiserver_node_flags(self):
        p = self.pki.path
        return [f"--kubelet-client-certificate={p('apiserver-kubelet-client.crt')}",
                f"--kubelet-client-key={p('apiserver-kubelet-client.key')}",
                "--kubelet-preferred-address-types=InternalIP"]

    def controllers(self):
        # Node lifecycle removes the not-ready taint the kubelet registers with.
        return "*,-nodeipam,-bootstrapsigner,-tokencleaner"

    def start_scheduler(self):
        kubeconfig = os.path.join(self.workdir, "kube-scheduler.kubeconfig")
        self._spawn("kube-scheduler", [
            os.path.join(self.bin_dir, "kube-scheduler"), f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}", f"--authorization-kubeconfig={kubeconfig}",
            "--leader-elect=false", "--port=0", "--secure-port=0", "--bind-address=127.0.0.1", "--v=1"])

    # --- the node -------------------------------------------------------------------------
    def start_containerd(self):
        cni_conf = os.path.join(self.workdir, "cni", "net.d")
        os.makedirs(cni_conf, exist_ok=True)
        with open(os.path.join(cni_conf, "10-ergobench.conflist"), "w") as f:
            json.dump({"cniVersion": "0.4.0", "name": "ergobench", "plugins": [
                {"type": "bridge", "bridge": BRIDGE, "isGateway": True, "ipMasq": True, "hairpinMode": True,
                 "ipam": {"type": "host-local", "dataDir": os.path.join(self.workdir, "cni", "ipam"),
                          "ranges": [[{"subnet": POD_SUBNET, "gateway": POD_GATEWAY}]],
                          "routes": [{"dst": "0.0.0.0/0"}]}},
                {"type": "portmap", "capabilities": {"portMappings": True}}]}, f, indent=1)
        config = os.path.join(self.containerd_dir, "config.toml")
        os.makedirs(self.containerd_dir, exist_ok=True)
        with open(config, "w") as f:
            f.write(f"""version = 2
root = "{CONTAINERD_ROOT}"
state = "{os.path.join(self.containerd_dir, 'state')}"
[grpc]
  address = "{self.containerd_socket}"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{self.pause_image()}"
  # Root here lacks CAP_SYS_RESOURCE: runc could not lower a sandbox's oom_score_adj to -998.
  restrict_oom_score_adj = true
  # Pods' network namespaces under the work dir, not /var/run/netns: unmounted with it, they go
  # even when no kubelet tore the sandboxes down (a stop, a killed run), veths and addresses too.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "{os.path.join(HERE, 'runc_node_sysfs.py') if self.node_sysfs else 'runc'}"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "{cni_conf}"
""")
        env = dict(os.environ, ERGOBENCH_NODE_SYSFS=self.node_sysfs) if self.node_sysfs else None
        self._spawn("containerd", ["containerd", "--config", config], env)
        self.wait_for(lambda: self.ctr("version", check=False).returncode == 0, 30, "containerd")
        if self.remove_leftover_containers():
            # The CRI plugin keeps what it loaded at start, deleted or not: a kubelet shown those
            # containers races its own garbage collector for them, and 1.20 exits 255 when it
            # loses ("no PodsandBox found"). A restart loads the clean store.
            self.stop_process("containerd")
            self._spawn("containerd", ["containerd", "--config", config], env)
            self.wait_for(lambda: self.ctr("version", check=False).returncode == 0, 30, "containerd")

    def ctr(self, *args, check=True, namespace="k8s.io"):
        result = subprocess.run(["ctr", "--address", self.containerd_socket, "--namespace", namespace, *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"ctr {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def remove_leftover_containers(self):
        """Removes the containers of an earlier cluster that ended without teardown (a killed
        test run); says whether there were any."""
        containers = self.ctr("containers", "list", "--quiet").stdout.split()
        for container in containers:
            self.ctr("tasks", "kill", "--signal", "SIGKILL", container, check=False)
            for _ in range(20):
                if self.ctr("tasks", "delete", container, check=False).returncode == 0 or \
                        "not found" in self.ctr("tasks", "ps", container, check=False).stderr:
                    break
                time.sleep(0.2)
            self.ctr("containers", "delete", container, check=False)
        return bool(containers)

    @staticmethod
    def pause_image():
        return "localhost/ergobench/pause:3.4.1"

    def import_image(self, reference, archive_writer, source_id):
        """Imports `reference` unless containerd holds it from the same source already."""
        listed = self.ctr("images", "list", f"labels.\"{IMAGE_SOURCE_LABEL}\"=={source_id}", check=False).stdout
        if reference in listed:
            return
        archive = os.path.join(self.workdir, "image.tar")
        archive_writer(archive)
        # Unpacked under a name of its own, then renamed: importing straight over `reference`
        # leaves the layers the old and new images share referenced by nothing while the new
        # one unpacks, and containerd's garbage collector may delete them under it ("parent
        # snapshot ... does not exist", containerd issue #3787).
        staging = f"{reference}-import-{source_id[:12]}"
        try:
            self.ctr("images", "import", "--index-name", staging, archive)
        finally:
            os.unlink(archive)
        self.ctr("images", "tag", "--force", staging, reference)
        self.ctr("images", "rm", staging)
        self.ctr("images", "label", reference, f"{IMAGE_SOURCE_LABEL}={source_id}")

    def import_pause_image(self):
        pause = os.path.join(self.bin_dir, "pause")
        source_id = str(int(os.stat(pause).st_mtime))

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
        self.import_image(self.pause_image(), write, source_id)

    def import_podman_image(self, local_name):
        """A podman image (`ergobench-runner:0.1.0`) under the name a pod spec's short name
        means to the kubelet (`docker.io/library/ergobench-runner:0.1.0`), as `kind load` does."""
        podman = ["bash", "-c", 'source "$0"; exec podman "$@"', os.path.join(ROOT, "images/env.sh")]
        source_id = subprocess.run(podman + ["image", "inspect", "--format", "{{.Id}}", local_name], check=True,
                                   stdout=subprocess.PIPE, text=True).stdout.strip()
        reference = local_name if "/" in local_name.split(":")[0] else "docker.io/library/" + local_name
        self.import_image(reference, lambda archive: subprocess.run(
            podman + ["save", "--quiet", "--format", "oci-archive", "-o", archive, local_name], check=True), source_id)

    def start_kubelet(self):
        root = os.path.join(self.workdir, "kubelet")
        os.makedirs(root, exist_ok=True)
        config = os.path.join(self.workdir, "kubelet-config.json")
        with open(config, "w") as f:
            json.dump({
                "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                "address": self.node_ip, "port": self.kubelet_port,
                "healthzBindAddress": "127.0.0.1", "healthzPort": self.kubelet_healthz_port, "readOnlyPort": 0,
                "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True},
                                   "x509": {"clientCAFile": self.pki.path("ca.crt")}},
                "authorization": {"mode": "Webhook"},
                "cgroupDriver": "cgroupfs", "failSwapOn": False,
                "clusterDNS": [POD_GATEWAY], "clusterDomain": "cluster.local", "resolvConf": "",
                # A test machine's disk is shared: never evict for it, never collect our images.
                "evictionHard": {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%",
                                 "nodefs.inodesFree": "1%"},
                "imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 99,
                "serializeImagePulls": False, "volumePluginDir": os.path.join(root, "volume-plugins"),
            }, f, indent=1)
        self._spawn("kubelet", [
            os.path.join(self.bin_dir, "kubelet"), f"--config={config}",
            f"--kubeconfig={os.path.join(self.workdir, 'kubelet.kubeconfig')}",
            f"--root-dir={root}", f"--cert-dir={os.path.join(root, 'pki')}",
            "--container-runtime=remote", f"--container-runtime-endpoint=unix://{self.containerd_socket}",
            f"--hostname-override={NODE_NAME}", f"--node-ip={self.node_ip}", "--v=1"])

    def start_kube_proxy(self):
        config = os.path.join(self.workdir, "kube-proxy-config.json")
        with open(config, "w") as f:
            json.dump({
                "apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration",
                "mode": "iptables", "clusterCIDR": POD_SUBNET, "hostnameOverride": NODE_NAME,
                "bindAddress": "127.0.0.1", "healthzBindAddress": f"127.0.0.1:{free_port()}",
                "metricsBindAddress": f"127.0.0.1:{free_port()}",
                "clientConnection": {"kubeconfig": os.path.join(self.workdir, "kube-proxy.kubeconfig")},
                # Leave the host's conntrack table size alone.
                "conntrack": {"maxPerCore": 0},
            }, f, indent=1)
        self._spawn("kube-proxy", [os.path.join(self.bin_dir, "kube-proxy"), f"--config={config}", "--v=1"])

    def start_dns(self):
        hosts = os.path.join(self.workdir, "cluster-dns.hosts")
        open(hosts, "w").close()
        pid_file = os.path.join(self.workdir, "dnsmasq.pid")
        self._spawn("dnsmasq", [
            "dnsmasq", "--keep-in-foreground", "--log-facility=-", "--user=root", f"--pid-file={pid_file}",
            "--no-resolv", "--no-hosts", f"--addn-hosts={hosts}", "--local=/cluster.local/", "--local-ttl=1",
            # The bridge appears with the first pod: bind-dynamic binds to it when it does.
            f"--interface={BRIDGE}", "--bind-dynamic"])
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

    def node_ready(self):
        self.check_running()
        out = self.kubectl("get", "node", NODE_NAME, "-o", "json", check=False)
        if out.returncode != 0:
            return False
        node = json.loads(out.stdout)
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions", []))
        return ready and not node["spec"].get("taints")

    def service_rules_ready(self):
        self.check_running()
        rules = subprocess.run(["iptables-save", "-t", "nat"], stdout=subprocess.PIPE, text=True).stdout
        return "default/kubernetes:https cluster IP" in rules

    def take_the_node(self):
        """One cluster at a time owns the node: containerd's image store, the bridge, iptables.
        What an earlier owner left when it died without teardown is ended first: the lock file
        names its work dir ("workdir PATH"), whose containerd's shims still run its pods and
        whose mounts are still up, and its processes ("pid start-time", so that a reused pid
        is left alone)."""
        os.makedirs(CONTAINERD_ROOT, exist_ok=True)
        self.lock = open(os.path.join(CACHE, "cluster.lock"), "a+")
        fcntl.flock(self.lock, fcntl.LOCK_EX)
        self.lock.seek(0)
        lines = [line.split(maxsplit=1) for line in self.lock.read().splitlines()]
        # Its kubelet and containerd first, so that nothing starts a container or mounts a
        # volume while the rest goes; then its pods (the shims, parents before children, until
        # none is left); then its mounts, its pods' network namespaces among them; the bridge
        # last, which still holds the dead pods' interfaces and addresses.
        for first, second in lines:
            if first != "workdir" and process_start_time(first) == second:
                os.kill(int(first), signal.SIGKILL)
        for first, workdir in lines:
            if first == "workdir":
                end_shims(os.path.join(workdir, "containerd", "containerd.sock"))
                unmount_under(workdir)
                subprocess.run(["ip", "link", "delete", BRIDGE], stderr=subprocess.DEVNULL)
        remove_cni_nat_rules()
        self.lock.truncate(0)
        self.lock.write(f"workdir {os.path.abspath(self.workdir)}\n")
        self.lock.flush()

    def _spawn(self, name, argv, env=None):
        super()._spawn(name, argv, env)
        pid = str(self.procs[name].pid)
        self.lock.write(f"{pid} {process_start_time(pid)}\n")
        self.lock.flush()

    def start(self):
        self.take_the_node()
        super().start()
        self.start_scheduler()
        self.start_containerd()
        self.import_pause_image()
        self.start_kubelet()
        self.start_kube_proxy()
        self.start_dns()
        self.wait_for(self.node_ready, 120, f"node {NODE_NAME} Ready and untainted")
        self.wait_for(self.service_rules_ready, 60, "kube-proxy's rules for the kubernetes Service")
        self.start_storage()
        return self

    def stop(self):
        # Pods first, while the kubelet can still stop them; then the node, then the control plane.
        if "kubelet" in self.procs and "kube-apiserver" in self.procs:
            self.kubectl("delete", "pods", "--all", "--all-namespaces", "--grace-period=0", "--force",
                         "--timeout=30s", check=False)
        for name in ("local-path", "cluster-dns", "dnsmasq", "kube-proxy", "kubelet", "kube-scheduler"):
            self.stop_process(name)
        if "containerd" in self.procs:
            self.remove_leftover_containers()
            self.stop_process("containerd")
        subprocess.run([os.path.join(self.bin_dir, "kube-proxy"), "--cleanup"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        subprocess.run(["ip", "link", "delete", BRIDGE], stderr=subprocess.DEVNULL)
        remove_cni_nat_rules()
        # The kubelet's volume mounts (tmpfs secrets, projected tokens) and the sandboxes' /dev/shm.
        unmount_under(self.workdir)
        super().stop()
        if self.lock:
            self.lock.close()
            self.lock = None


# Dynamic PersistentVolumes on the one node, writable by non-root pods (local_path_provisioner.py).
STORAGE_CLASS = {
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
    "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "ergobench.io/local-path", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
}


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", default="/tmp/ergobench-cluster")
    parser.add_argument("--image", action="append", default=[],
                        help="a podman image to import, e.g. ergobench-runner:0.1.0 (repeatable)")
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    cluster = Cluster(args.workdir)
    try:
        cluster.start()
        for image in args.image:
            cluster.import_podman_image(image)
        print(f"cluster up: export KUBECONFIG={cluster.admin_kubeconfig}", flush=True)
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
        signal.sigwait([signal.SIGINT, signal.SIGTERM])
    finally:
        cluster.stop()
