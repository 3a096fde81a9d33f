"""Feeds dnsmasq, the test cluster's stand-in for the DNS add-on, from the API: a hosts file with
the names the Kubernetes DNS specification defines, rewritten (and dnsmasq sent SIGHUP) when
Services or Endpoints change.

  <service>.<namespace>.svc.cluster.local             the cluster IP, or every endpoint of a
                                                      headless Service (not-ready ones included
                                                      where the Service publishes them)
  <hostname>.<service>.<namespace>.svc.cluster.local  a pod with that hostname and subdomain

Test infrastructure only: ergobench itself works with any conformant cluster DNS.
"""

import argparse
import json
import os
import signal
import ssl
import time
import urllib.request

DOMAIN = "svc.cluster.local"


def api_client(kubeconfig):
    """call(method, path, body=None) -> the answer's JSON, as the kubeconfig's user."""
    with open(kubeconfig) as f:
        config = json.load(f)
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    context = ssl.create_default_context(cafile=cluster["certificate-authority"])
    context.load_cert_chain(user["client-certificate"], user["client-key"])

    def call(method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(cluster["server"] + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, context=context, timeout=10) as r:
            return json.load(r)
    return call


def records(services, endpoints):
    """Sorted (ip, name) pairs."""
    out = set()
    subsets = {(e["metadata"]["namespace"], e["metadata"]["name"]): e.get("subsets") or [] for e in endpoints}
    for service in services:
        ns, name = service["metadata"]["namespace"], service["metadata"]["name"]
        fqdn = f"{name}.{ns}.{DOMAIN}"
        cluster_ip = service["spec"].get("clusterIP")
        if cluster_ip and cluster_ip != "None":
            out.add((cluster_ip, fqdn))
            continue
        for subset in subsets.get((ns, name), []):
            for address in subset.get("addresses", []) + subset.get("notReadyAddresses", []):
                out.add((address["ip"], fqdn))
                if address.get("hostname"):
                    out.add((address["ip"], f"{address['hostname']}.{fqdn}"))
    return sorted(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--hosts", required=True)
    parser.add_argument("--pid-file", required=True, help="dnsmasq's")
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    call = api_client(args.kubeconfig)
    written = None
    while True:
        try:
            current = records(call("GET", "/api/v1/services")["items"], call("GET", "/api/v1/endpoints")["items"])
        except OSError as e:
            print(f"cluster-dns: {e}", flush=True)
            time.sleep(1)
            continue
        if current != written:
            with open(args.hosts + ".tmp", "w") as f:
                f.writelines(f"{ip} {name}\n" for ip, name in current)
            os.replace(args.hosts + ".tmp", args.hosts)
            try:
                with open(args.pid_file) as f:
                    os.kill(int(f.read()), signal.SIGHUP)
                written = current
            except (OSError, ValueError):
                pass  # dnsmasq not up yet: try again next round
        time.sleep(args.interval)


if __name__ == "__main__":
    main()
