"""A real Kubernetes control plane on 127.0.0.1 for tests: etcd, kube-apiserver and
kube-controller-manager (the garbage collector and service-account controllers included),
with a throwaway PKI, RBAC on and service-account tokens.

Binaries come from build-kubernetes.sh (built once from Debian's kubernetes source
package and cached), or from KUBE_BIN_DIR and ETCD_BIN
(e.g. envtest assets).

    with ControlPlane(workdir) as cp:
        cp.kubectl("get", "namespaces")
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kube_bin_dir():
    """The folder of the Kubernetes binaries (build-kubernetes.sh, built once and cached)."""
    out = subprocess.run([os.path.join(HERE, "build-kubernetes.sh")], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return out.strip().splitlines()[-1]


def control_plane_binaries():
    """(kube-apiserver, kube-controller-manager, etcd)."""
    bin_dir = kube_bin_dir()
    etcd = os.environ.get("ETCD_BIN") or shutil.which("etcd") or "/usr/bin/etcd"
    return os.path.join(bin_dir, "kube-apiserver"), os.path.join(bin_dir, "kube-controller-manager"), etcd


def kube_tools_dir():
    """The folder holding helm and kubectl v1.32 (scripts/install-kube-tools.sh, cached)."""
    script = os.path.join(HERE, "..", "..", "scripts", "install-kube-tools.sh")
    return subprocess.run([script], check=True, stdout=subprocess.PIPE, text=True).stdout.strip().splitlines()[-1]


_TOOLS = kube_tools_dir()
KUBECTL = os.path.join(_TOOLS, "kubectl")
HELM = os.path.join(_TOOLS, "helm")


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Pki:
    """A CA and the certificates the control plane and its clients need."""

    def __init__(self, directory, node_ip=None):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        d = directory
        _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                 "-days", "2", "-subj", "/CN=ergobench-test-ca", cwd=d)
        _openssl("genrsa", "-out", "sa.key", "2048", cwd=d)
        _openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=d)
        node_san = f",IP:{node_ip}" if node_ip else ""
        self.issue("apiserver", "/CN=kube-apiserver",
                   f"subjectAltName=IP:127.0.0.1,IP:10.96.0.1{node_san},DNS:localhost,DNS:kubernetes,"
                   "DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local",
                   "serverAuth")
        self.issue("admin", "/O=system:masters/CN=admin", None, "clientAuth")
        self.issue("controller-manager", "/CN=system:kube-controller-manager", None, "clientAuth")

    def path(self, name):
        return os.path.join(self.dir, name)

    def issue(self, name, subject, san, usage):
        d = self.dir
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", subject, cwd=d)
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write(f"extendedKeyUsage={usage}\nkeyUsage=digitalSignature,keyEncipherment\n")
            if san:
                f.write(san + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.crt", "-days", "2", "-extfile", f"{name}.ext", cwd=d)


def write_kubeconfig(path, server, ca, cert=None, key=None, token=None, namespace="default"):
    user = {}
    if cert:
        user["client-certificate"] = cert
        user["client-key"] = key
    if token:
        user["token"] = token
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": "test",
        "clusters": [{"name": "test", "cluster": {"server": server, "certificate-authority": ca}}],
        "users": [{"name": "test", "user": user}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test", "namespace": namespace}}],
    }
    with open(path, "w") as f:
        json.dump(config, f, indent=1)  # JSON is YAML
    return path


class ControlPlane:
    """etcd, kube-apiserver and kube-controller-manager. With `node_ip`, the API server listens
    on every address and advertises that one, so that pods reach it through the `kubernetes`
    Service, and kubelets are authorised as nodes (cluster.py adds the node)."""

    def __init__(self, workdir, node_ip=None):
        self.workdir = workdir
        self.node_ip = node_ip
        os.makedirs(workdir, exist_ok=True)
        self.apiserver_bin, self.manager_bin, self.etcd_bin = control_plane_binaries()
        self.pki = Pki(os.path.join(workdir, "pki"), node_ip)
        self.etcd_port, self.peer_port, self.api_port = free_port(), free_port(), free_port()
        self.server = f"https://127.0.0.1:{self.api_port}"
        self.admin_kubeconfig = write_kubeconfig(os.path.join(workdir, "admin.kubeconfig"), self.server,
                                                 self.pki.path("ca.crt"), self.pki.path("admin.crt"),
                                                 self.pki.path("admin.key"))
        self.manager_kubeconfig = write_kubeconfig(os.path.join(workdir, "controller-manager.kubeconfig"),
                                                   self.server, self.pki.path("ca.crt"),
                                                   self.pki.path("controller-manager.crt"),
                                                   self.pki.path("controller-manager.key"))
        self.procs = {}

    def _spawn(self, name, argv, env=None):
        with open(os.path.join(self.workdir, f"{name}.log"), "ab") as log:
            self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                                env=env)

    def start_etcd(self):
        self._spawn("etcd", [
            self.etcd_bin, "--data-dir", os.path.join(self.workdir, "etcd"), "--name", "default",
            "--listen-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--advertise-client-urls", f"http://127.0.0.1:{self.etcd_port}",
            "--listen-peer-urls", f"http://127.0.0.1:{self.peer_port}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer_port}",
            "--initial-cluster", f"default=http://127.0.0.1:{self.peer_port}",
            "--log-level", "warn"])

    def apiserver_node_flags(self):
        return []

    def controllers(self):
        # No kubelet heartbeats without a node: node lifecycle would taint and evict nothing.
        return "*,-nodelifecycle,-nodeipam,-bootstrapsigner,-tokencleaner"

    def start_apiserver(self):
        p = self.pki.path
        bind, advertise = ("0.0.0.0", self.node_ip) if self.node_ip else ("127.0.0.1", "127.0.0.1")
        self._spawn("kube-apiserver", [
            self.apiserver_bin,
            f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
            f"--bind-address={bind}", f"--advertise-address={advertise}", f"--secure-port={self.api_port}",
            "--insecure-port=0",
            f"--tls-cert-file={p('apiserver.crt')}", f"--tls-private-key-file={p('apiserver.key')}",
            f"--client-ca-file={p('ca.crt')}",
            f"--service-account-key-file={p('sa.pub')}", f"--service-account-signing-key-file={p('sa.key')}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--authorization-mode=Node,RBAC", "--service-cluster-ip-range=10.96.0.0/16", "--allow-privileged=true",
            "--enable-priority-and-fairness=false", "--v=1", *self.apiserver_node_flags()])
        self.wait_ready()

    def start_controller_manager(self):
        p = self.pki.path
        self._spawn("kube-controller-manager", [
            self.manager_bin, f"--kubeconfig={self.manager_kubeconfig}",
            f"--authentication-kubeconfig={self.manager_kubeconfig}",
            f"--authorization-kubeconfig={self.manager_kubeconfig}",
            "--bind-address=127.0.0.1", "--secure-port=0", "--port=0", "--leader-elect=false",
            f"--service-account-private-key-file={p('sa.key')}", f"--root-ca-file={p('ca.crt')}",
            "--use-service-account-credentials=true",
            f"--controllers={self.controllers()}", "--enable-hostpath-provisioner",
            "--concurrent-gc-syncs=5", "--v=1"])

    def start(self):
        self.start_etcd()
        self.start_apiserver()
        self.start_controller_manager()
        # The controller manager is up once it has made the default ServiceAccount.
        self.wait_for(lambda: self.kubectl("get", "serviceaccount", "default", check=False).returncode == 0,
                      60, "the default ServiceAccount")
        return self

    def stop_process(self, name, sig_kill=False):
        proc = self.procs.pop(name, None)
        if proc is None:
            return
        if sig_kill:
            proc.kill()
        else:
            proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def stop(self):
        for name in ("kube-controller-manager", "kube-apiserver", "etcd"):
            self.stop_process(name)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def wait_ready(self, timeout=90):
        deadline = time.time() + timeout
        while time.time() < deadline:
            proc = self.procs.get("kube-apiserver")
            if proc is not None and proc.poll() is not None:
                raise RuntimeError("kube-apiserver exited; see " + os.path.join(self.workdir, "kube-apiserver.log"))
            if self.kubectl("get", "--raw", "/readyz", check=False).returncode == 0:
                return
            time.sleep(0.5)
        raise RuntimeError("kube-apiserver not ready after %d s" % timeout)

    @staticmethod
    def wait_for(predicate, timeout, what, context=None):
        """`context`, if given, is called on a timeout: what it returns goes into the error."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate():
                return
            time.sleep(0.5)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}" +
                             (f"; {context()}" if context else ""))

    def kubectl(self, *args, check=True, kubeconfig=None, input=None):
        result = subprocess.run([KUBECTL, f"--kubeconfig={kubeconfig or self.admin_kubeconfig}", *args],
                                input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)} failed ({result.returncode}): {result.stderr}")
        return result

    def get_json(self, *args):
        return json.loads(self.kubectl("get", "-o", "json", *args).stdout)

    def service_account_secret(self, namespace, name):
        """The files kubelet mounts at /var/run/secrets/kubernetes.io/serviceaccount for a pod
        of this ServiceAccount: {"token": ..., "ca.crt": ..., "namespace": ...}."""
        def secret():
            sa = self.get_json("-n", namespace, "serviceaccount", name)
            for ref in sa.get("secrets") or []:
                data = self.get_json("-n", namespace, "secret", ref["name"]).get("data", {})
                if data.get("token"):
                    return data
            return None
        self.wait_for(lambda: secret() is not None, 60, f"the token of ServiceAccount {namespace}/{name}")
        return {key: base64.b64decode(value).decode() for key, value in secret().items()}

    def service_account_kubeconfig(self, namespace, name, path):
        """A kubeconfig with the token of a ServiceAccount: what an in-cluster operator holds."""
        token = self.service_account_secret(namespace, name)["token"]
        return write_kubeconfig(path, self.server, self.pki.path("ca.crt"), token=token, namespace=namespace)


if __name__ == "__main__":
    import argparse
    import signal
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", default="/tmp/ergobench-control-plane")
    args = parser.parse_args()
    cp = ControlPlane(args.workdir).start()
    print(f"control plane up: KUBECONFIG={cp.admin_kubeconfig}", flush=True)
    try:
        # Blocked first, or the default action ends the process before `finally` stops it all.
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT, signal.SIGTERM])
        signal.sigwait([signal.SIGINT, signal.SIGTERM])
    finally:
        cp.stop()
