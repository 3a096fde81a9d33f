"""The test cluster's dynamic PersistentVolumes, as kind's local-path-provisioner gives them:
a claim of the default StorageClass gets a hostPath volume in a new folder on the node, made
writable by anyone (mode 0777), so that non-root pods (the restricted profile, uid 65532) can
write and read it; a released volume's folder is removed with it. kube-controller-manager's
in-tree hostpath provisioner cannot stand in: it makes /tmp/hostpath_pv/<uuid> root-owned 0750.

Test infrastructure only: ergobench works with any StorageClass.
"""

import argparse
import os
import shutil
import time
import urllib.error

from cluster_dns import api_client

PROVISIONER = "ergobench.io/local-path"


def volume_for(claim, root):
    meta = claim["metadata"]
    name = f"pvc-{meta['uid']}"
    return {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": PROVISIONER}},
        "spec": {
            "capacity": {"storage": claim["spec"]["resources"]["requests"]["storage"]},
            "accessModes": claim["spec"]["accessModes"],
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": claim["spec"].get("storageClassName", ""),
            "hostPath": {"path": os.path.join(root, name), "type": "Directory"},
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
                         "name": meta["name"], "uid": meta["uid"]},
        },
    }


def provision(call, root):
    for claim in call("GET", "/api/v1/persistentvolumeclaims")["items"]:
        annotations = claim["metadata"].get("annotations", {})
        wanted = annotations.get("volume.beta.kubernetes.io/storage-provisioner") == PROVISIONER
        if not wanted or claim["spec"].get("volumeName") or claim["status"].get("phase") != "Pending":
            continue
        volume = volume_for(claim, root)
        path = volume["spec"]["hostPath"]["path"]
        os.makedirs(path, exist_ok=True)
        os.chmod(path, 0o777)
        try:
            call("POST", "/api/v1/persistentvolumes", volume)
            print(f"local-path: {volume['metadata']['name']} for {claim['metadata']['namespace']}/"
                  f"{claim['metadata']['name']} at {path}", flush=True)
        except urllib.error.HTTPError as e:
            if e.code != 409:
                raise
    for volume in call("GET", "/api/v1/persistentvolumes")["items"]:
        ours = volume["metadata"].get("annotations", {}).get("pv.kubernetes.io/provisioned-by") == PROVISIONER
        if ours and volume.get("status", {}).get("phase") == "Released":
            shutil.rmtree(volume["spec"]["hostPath"]["path"], ignore_errors=True)
            call("DELETE", f"/api/v1/persistentvolumes/{volume['metadata']['name']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--root", required=True, help="the folder the volumes' folders are made in")
    parser.add_argument("--interval", type=float, default=0.5)
    args = parser.parse_args()
    call = api_client(args.kubeconfig)
    while True:
        try:
            provision(call, args.root)
        except OSError as e:
            print(f"local-path: {e}", flush=True)
        time.sleep(args.interval)


if __name__ == "__main__":
    main()
