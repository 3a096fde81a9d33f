"""A node agent for tests: plays the kubelet and the scheduler on this machine.

- Registers a Ready Node and binds pending pods to it (pods naming another schedulerName
  or node are left alone).
- Runs each pod's container command, args and env as a local process. The image is not
  pulled: --bin-dir goes first on PATH, standing in for the image's binaries.
- Gives each pod its own network identity: a network namespace with a veth on a bridge
  (10.244.0.0/24, reachable from the host), its own hostname (a UTS namespace), and a hosts
  file that maps the pod DNS names of headless Services (<hostname>.<subdomain>[.<ns>.svc
  [.cluster.local]]) to pod IPs, so ranks can bind the same ports and find each other.
- Pins a container with a whole-number CPU limit to that many CPUs, as the kubelet's
  static CPU manager does for Guaranteed pods.
- Mounts configMap and emptyDir volumes (bind mounts in the pod's mount namespace) and the
  terminationMessagePath file.
- Reports through pods/status: Running with podIP and Ready, then Succeeded or Failed with
  the exit code and the termination message (the file, or the log tail for
  FallbackToLogsOnError).
- With --sysfs-root, gives every container that folder as its /sys for energy meters
  (ERGOBENCH_SYSFS_ROOT), for machines without RAPL.
- Kills the processes of deleted pods (SIGTERM, then SIGKILL after the grace period) and
  completes the deletion, as the kubelet does.

It uses Debian's python3-kubernetes, so it shares no code with the operator under test.
Needs root (network namespaces, mounts).
"""

import argparse
import datetime
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

BRIDGE = "ergobench0"
POD_SYSFS_ROOT = "/run/ergobench-node-sysfs"  # where pods see --sysfs-root
SUBNET = "10.244.0"


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sh(*argv, check=True):
    return subprocess.run(argv, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def log(message):
    print(f"{now()} node-agent: {message}", file=sys.stderr, flush=True)


class Pod:
    def __init__(self, obj, ip, netns):
        self.uid = obj["metadata"]["uid"]
        self.name = obj["metadata"]["name"]
        self.namespace = obj["metadata"]["namespace"]
        self.obj = obj
        self.ip = ip
        self.netns = netns
        self.proc = None
        self.done = False
        self.deleting = False


class NodeAgent:
    def __init__(self, kubeconfig, node_name, work_dir, bin_dir, sysfs_root=None):
        config.load_kube_config(config_file=kubeconfig)
        self.api = client.CoreV1Api()
        self.node = node_name
        self.work = work_dir
        self.bin_dir = bin_dir
        self.sysfs_root = sysfs_root
        self.pods = {}  # uid -> Pod
        self.lock = threading.RLock()
        self.next_ip = 2
        self.next_cpu = 0
        self.stopping = False

    # --- the node -------------------------------------------------------------------------
    def register(self):
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": self.node, "labels": {"kubernetes.io/hostname": self.node,
                                                          "kubernetes.io/os": "linux"}}}
        try:
            self.api.create_node(node)
        except ApiException as e:
            if e.status != 409:
                raise
        self.heartbeat()

    def heartbeat(self):
        cpus = str(os.cpu_count())
        memory = str(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 1024) + "Ki"
        status = {"status": {
            "capacity": {"cpu": cpus, "memory": memory, "pods": "110"},
            "allocatable": {"cpu": cpus, "memory": memory, "pods": "110"},
            "addresses": [{"type": "InternalIP", "address": f"{SUBNET}.1"}, {"type": "Hostname", "address": self.node}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                            "message": "ergobench node agent is ready", "lastHeartbeatTime": now(),
                            "lastTransitionTime": now()}]}}
        self.api.patch_node_status(self.node, status)

    # --- networking -----------------------------------------------------------------------
    def setup_bridge(self):
        # Leftovers of an earlier agent go first.
        for line in sh("ip", "netns", "list", check=False).stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith("ebp-"):
                sh("ip", "netns", "delete", name, check=False)
        if sh("ip", "link", "show", BRIDGE, check=False).returncode != 0:
            sh("ip", "link", "add", BRIDGE, "type", "bridge")
            sh("ip", "addr", "add", f"{SUBNET}.1/24", "dev", BRIDGE)
        sh("ip", "link", "set", BRIDGE, "up")

    def setup_netns(self, netns, ip, index):
        host_veth, pod_veth = f"ebh{index}", f"ebc{index}"
        sh("ip", "netns", "add", netns)
        sh("ip", "link", "add", host_veth, "type", "veth", "peer", "name", pod_veth)
        sh("ip", "link", "set", host_veth, "master", BRIDGE, "up")
        sh("ip", "link", "set", pod_veth, "netns", netns)
        sh("ip", "-n", netns, "link", "set", pod_veth, "name", "eth0")
        sh("ip", "-n", netns, "addr", "add", f"{ip}/24", "dev", "eth0")
        sh("ip", "-n", netns, "link", "set", "eth0", "up")
        sh("ip", "-n", netns, "link", "set", "lo", "up")
        sh("ip", "-n", netns, "route", "add", "default", "via", f"{SUBNET}.1")

    def teardown_netns(self, netns):
        sh("ip", "netns", "delete", netns, check=False)  # deleting the namespace deletes its veth pair

    def hosts_text(self, pod):
        lines = ["127.0.0.1 localhost", "::1 localhost ip6-localhost"]
        with self.lock:
            for other in self.pods.values():
                spec = other.obj["spec"]
                hostname = spec.get("hostname") or other.name
                names = [hostname]
                if spec.get("subdomain"):
                    fq = f"{hostname}.{spec['subdomain']}"
                    names += [fq, f"{fq}.{other.namespace}.svc", f"{fq}.{other.namespace}.svc.cluster.local"]
                if other.namespace == pod.namespace or other is pod:
                    lines.append(f"{other.ip} " + " ".join(names))
        return "\n".join(lines) + "\n"

    def refresh_hosts(self):
        # Rewritten in place: running pods see the file through a bind mount of this inode.
        with self.lock:
            for pod in self.pods.values():
                path = f"/etc/netns/{pod.netns}/hosts"
                if os.path.exists(path):
                    with open(path, "r+") as f:
                        f.truncate(0)
                        f.write(self.hosts_text(pod))

    # --- pods -----------------------------------------------------------------------------
    def bind(self, obj):
        meta = obj["metadata"]
        body = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": meta["name"]},
                "target": {"apiVersion": "v1", "kind": "Node", "name": self.node}}
        try:
            # _preload_content=False: the generated client cannot read the Binding it gets back.
            self.api.create_namespaced_pod_binding(meta["name"], meta["namespace"], body, _preload_content=False)
        except ApiException as e:
            if e.status not in (404, 409):
                raise

    def volume_dir(self, pod, name):
        return os.path.join(self.work, pod.uid, "volumes", name)

    def prepare_volumes(self, pod):
        mounts = []
        volumes = {v["name"]: v for v in pod.obj["spec"].get("volumes", [])}
        container = pod.obj["spec"]["containers"][0]
        for mount in container.get("volumeMounts", []):
            volume = volumes.get(mount["name"], {})
            directory = self.volume_dir(pod, mount["name"])
            os.makedirs(directory, exist_ok=True)
            if "configMap" in volume:
                cm = self.api.read_namespaced_config_map(volume["configMap"]["name"], pod.namespace)
                for key, value in (cm.data or {}).items():
                    with open(os.path.join(directory, key), "w") as f:
                        f.write(value)
            elif "emptyDir" not in volume:
                continue  # service-account tokens and the like: not needed by these tests
            mounts.append((directory, mount["mountPath"]))
        return mounts

    def start(self, obj):
        meta = obj["metadata"]
        with self.lock:
            if meta["uid"] in self.pods:
                return
            index = self.next_ip
            self.next_ip += 1
            if index > 254:
                raise RuntimeError("out of pod IPs")
            netns = "ebp-" + hashlib.sha1(meta["uid"].encode()).hexdigest()[:10]
            pod = Pod(obj, f"{SUBNET}.{index}", netns)
            self.pods[pod.uid] = pod
        self.setup_netns(netns, pod.ip, index)
        os.makedirs(f"/etc/netns/{netns}", exist_ok=True)
        with open(f"/etc/netns/{netns}/hosts", "w") as f:
            f.write(self.hosts_text(pod))
        with open(f"/etc/netns/{netns}/resolv.conf", "w") as f:
            f.write(f"search {pod.namespace}.svc.cluster.local svc.cluster.local cluster.local\n"
                    "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
        self.refresh_hosts()

        container = obj["spec"]["containers"][0]
        pod_dir = os.path.join(self.work, pod.uid)
        os.makedirs(pod_dir, exist_ok=True)
        termination_path = container.get("terminationMessagePath") or "/dev/termination-log"
        termination_file = os.path.join(pod_dir, "termination-log")
        open(termination_file, "w").close()
        mounts = self.prepare_volumes(pod) + [(termination_file, termination_path)]
        if self.sysfs_root:
            # At a path of its own: the fixture lives under /tmp, which the pod's /tmp emptyDir hides.
            mounts.append((self.sysfs_root, POD_SYSFS_ROOT))
        # Every source lives under the work directory (in /tmp here): a volume mounted over one
        # of its parents (an emptyDir at /tmp) goes last, or it would hide the sources after it.
        mounts.sort(key=lambda m: (self.work + "/").startswith(m[1].rstrip("/") + "/"))

        env = {"PATH": f"{self.bin_dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "HOME": "/root", "HOSTNAME": obj["spec"].get("hostname") or pod.name,
               "KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
        if self.sysfs_root:
            env["ERGOBENCH_SYSFS_ROOT"] = POD_SYSFS_ROOT
        for var in container.get("env", []):
            if "value" in var:
                env[var["name"]] = var["value"]
        argv = (container.get("command") or []) + (container.get("args") or [])
        # Inside the pod's namespaces: its hostname, then its volumes, then the command.
        script = [f"hostname {shlex.quote(env['HOSTNAME'])}"]
        for source, target in mounts:
            if os.path.isdir(source):
                script.append(f"mkdir -p {shlex.quote(target)}")
            else:
                script.append(f"[ -e {shlex.quote(target)} ] || touch {shlex.quote(target)}")
            script.append(f"mount --bind {shlex.quote(source)} {shlex.quote(target)}")
        cpus = self.pin_cpus(pod, container)
        if cpus:
            script.append(f"taskset -pc {cpus} $$ >/dev/null")
        script.append('exec "$@"')
        wrapper = ["ip", "netns", "exec", netns, "unshare", "--uts", "--mount", "--propagation", "private",
                   "/bin/sh", "-ec", "; ".join(script), "sh"] + argv
        started = now()
        with open(os.path.join(pod_dir, "container.log"), "wb") as log_file:
            pod.proc = subprocess.Popen(wrapper, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        log(f"started {pod.namespace}/{pod.name} at {pod.ip} (pid {pod.proc.pid}): {' '.join(argv)}")
        self.report_running(pod, started)
        threading.Thread(target=self.monitor, args=(pod, started, termination_file), daemon=True).start()

    def pin_cpus(self, pod, container):
        """Like the kubelet's static CPU manager: a container with a whole-number CPU limit
        gets that many CPUs of its own (round robin here), so ranks do not oversubscribe."""
        limit = ((container.get("resources") or {}).get("limits") or {}).get("cpu")
        if limit is None or not str(limit).isdigit():
            return ""
        count = max(1, min(int(limit), os.cpu_count()))
        with self.lock:
            first = self.next_cpu
            self.next_cpu = (self.next_cpu + count) % os.cpu_count()
        return ",".join(str((first + i) % os.cpu_count()) for i in range(count))

    def container_status(self, pod, state, ready):
        c = pod.obj["spec"]["containers"][0]
        return [{"name": c["name"], "image": c.get("image", ""), "imageID": "", "ready": ready,
                 "restartCount": 0, "started": "running" in state,
                 "containerID": f"ergobench-node://{pod.proc.pid if pod.proc else 0}", "state": state}]

    def patch_status(self, pod, status):
        # As the kubelet: keep trying through an API server outage, or a pod's end is lost.
        deadline = time.time() + 600
        while not self.stopping:
            try:
                self.api.patch_namespaced_pod_status(pod.name, pod.namespace, {"status": status})
                return
            except ApiException as e:
                if e.status == 404 or (e.status < 500 and e.status != 429):
                    if e.status != 404:
                        log(f"cannot update {pod.namespace}/{pod.name}: {e.status} {e.reason}")
                    return
            except Exception as e:  # connection refused while the API server restarts
                if time.time() > deadline:
                    log(f"gave up updating {pod.namespace}/{pod.name}: {e}")
                    return
            time.sleep(1)

    def report_running(self, pod, started):
        conditions = [{"type": t, "status": "True", "lastTransitionTime": started}
                      for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
        self.patch_status(pod, {"phase": "Running", "podIP": pod.ip, "podIPs": [{"ip": pod.ip}],
                                "hostIP": f"{SUBNET}.1", "startTime": started, "conditions": conditions,
                                "containerStatuses": self.container_status(pod, {"running": {"startedAt": started}},
                                                                           True)})

    def monitor(self, pod, started, termination_file):
        code = pod.proc.wait()
        finished = now()
        if code < 0:
            code = 128 - code  # killed by a signal, reported as containers report it
        with open(termination_file, "rb") as f:
            message = f.read(4096).decode("utf-8", "replace")
        container = pod.obj["spec"]["containers"][0]
        if not message.strip() and code != 0 and container.get("terminationMessagePolicy") == "FallbackToLogsOnError":
            with open(os.path.join(self.work, pod.uid, "container.log"), "rb") as f:
                tail = f.read().decode("utf-8", "replace").splitlines()[-80:]
            message = "\n".join(tail)[-2048:]
        pod.done = True
        log(f"{pod.namespace}/{pod.name} exited with code {code}")
        if pod.deleting:
            return
        terminated = {"exitCode": code, "reason": "Completed" if code == 0 else "Error", "message": message,
                      "startedAt": started, "finishedAt": finished,
                      "containerID": f"ergobench-node://{pod.proc.pid}"}
        conditions = [{"type": t, "status": "False", "lastTransitionTime": finished, "reason": "PodCompleted"}
                      for t in ("Ready", "ContainersReady")]
        self.patch_status(pod, {"phase": "Succeeded" if code == 0 else "Failed", "conditions": conditions,
                                "containerStatuses": self.container_status(pod, {"terminated": terminated}, False)})

    def kill(self, pod, grace):
        pod.deleting = True
        if pod.proc and pod.proc.poll() is None:
            try:
                os.killpg(pod.proc.pid, signal.SIGTERM)
                pod.proc.wait(timeout=max(1, min(grace, 30)))
            except subprocess.TimeoutExpired:
                os.killpg(pod.proc.pid, signal.SIGKILL)
                pod.proc.wait()
            except ProcessLookupError:
                pass

    def remove(self, obj):
        """A pod being deleted: stop it, free its network, and complete the deletion."""
        meta = obj["metadata"]
        with self.lock:
            pod = self.pods.pop(meta["uid"], None)
        if pod is not None:
            self.kill(pod, obj["metadata"].get("deletionGracePeriodSeconds") or 30)
            self.teardown_netns(pod.netns)
            subprocess.run(["rm", "-rf", f"/etc/netns/{pod.netns}"], check=False)
            log(f"stopped {pod.namespace}/{pod.name}")
        if meta.get("deletionTimestamp"):
            try:
                self.api.delete_namespaced_pod(meta["name"], meta["namespace"], grace_period_seconds=0,
                                               body=client.V1DeleteOptions(
                                                   grace_period_seconds=0,
                                                   preconditions=client.V1Preconditions(uid=meta["uid"])))
            except ApiException as e:
                if e.status not in (404, 409):
                    log(f"cannot delete {meta['namespace']}/{meta['name']}: {e.status}")

    def handle(self, event_type, obj):
        meta, spec = obj["metadata"], obj["spec"]
        if event_type == "DELETED" or meta.get("deletionTimestamp"):
            self.remove(obj)
            return
        if spec.get("schedulerName", "default-scheduler") != "default-scheduler":
            return
        if not spec.get("nodeName"):
            self.bind(obj)
            return
        if spec["nodeName"] != self.node:
            return
        phase = (obj.get("status") or {}).get("phase", "Pending")
        if phase == "Pending" and meta["uid"] not in self.pods:
            try:
                self.start(obj)
            except Exception as e:  # a pod that cannot start fails; the agent goes on
                log(f"cannot start {meta['namespace']}/{meta['name']}: {e}")
                with self.lock:
                    pod = self.pods.get(meta["uid"]) or Pod(obj, "", "")
                self.patch_status(pod, {"phase": "Failed", "reason": "StartError", "message": str(e)})

    def run(self):
        self.setup_bridge()
        self.register()
        threading.Thread(target=self.heartbeats, daemon=True).start()
        raw = client.ApiClient()
        while not self.stopping:
            try:
                pods = self.api.list_pod_for_all_namespaces()
                for item in pods.items:
                    self.handle("ADDED", raw.sanitize_for_serialization(item))
                w = watch.Watch()
                for event in w.stream(self.api.list_pod_for_all_namespaces,
                                      resource_version=pods.metadata.resource_version, timeout_seconds=120,
                                      _preload_content=False):
                    obj = event["raw_object"]
                    self.handle(event["type"], obj)
            except Exception as e:  # the API server restarting: list and watch again
                if not self.stopping:
                    log(f"watch interrupted ({type(e).__name__}: {e}); retrying")
                    time.sleep(1)

    def heartbeats(self):
        while not self.stopping:
            time.sleep(10)
            try:
                self.heartbeat()
            except Exception:
                pass

    def shutdown(self):
        self.stopping = True
        with self.lock:
            pods = list(self.pods.values())
        for pod in pods:
            self.kill(pod, 5)
            self.teardown_netns(pod.netns)
            subprocess.run(["rm", "-rf", f"/etc/netns/{pod.netns}"], check=False)
        sh("ip", "link", "delete", BRIDGE, check=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--node-name", default="ergobench-node")
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--bin-dir", required=True, help="directory put first on PATH (the 'image')")
    parser.add_argument("--sysfs-root", help="the node's /sys for ergobench's energy meters (ERGOBENCH_SYSFS_ROOT "
                        "in every container): a fixture, for machines without RAPL")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("node-agent: needs root for network namespaces and mounts")
    agent = NodeAgent(args.kubeconfig, args.node_name, args.work_dir, os.path.abspath(args.bin_dir), args.sysfs_root)

    def stop(*_):
        agent.shutdown()
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    agent.run()


if __name__ == "__main__":
    main()
