"""OpenMPI across pods on the real cluster, as mpi-operator v2 runs it: k worker pods serving
sshd as the runner's user, a launcher pod running mpirun over ssh with the Benchmark's own
keys (a Secret the operator makes), the hostfile in the ConfigMap. Compared with gloo on the
same node and the same seed."""

import base64
import json
import os
import subprocess
import tempfile
import unittest
import urllib.request

from cluster_suite import NamespacedClusterSuite, WORKER_CPU
from harness import BIN_DIR

ERGOBENCH = os.path.join(BIN_DIR, "ergobench")
ONE_NODE = {"ranksPerNode": 8}


def benchmark(name, task, backend, workers=2, cpu=WORKER_CPU, **spec):
    spec = {"task": task, "workers": workers, "backend": backend, "resources": {"cpu": cpu},
            "scheduling": ONE_NODE, **spec}
    return {"apiVersion": "ergobench.io/v1alpha1", "kind": "Benchmark", "metadata": {"name": name}, "spec": spec}


class MpiTest(NamespacedClusterSuite):
    helm_values = {"progressInterval": 1}

    def gang_state(self, name):
        """Each pod's phase and last log lines, and the Benchmark's status: what a failure shows."""
        out = [json.dumps(self.status(name), indent=1)]
        for pod in self.pods(name):
            pod_name = pod["metadata"]["name"]
            out.append(f"--- {pod_name}: {pod['status'].get('phase')} "
                       f"{json.dumps(pod['status'].get('containerStatuses', []))[:1500]}")
            out.append(self.cp.kubectl("logs", "-n", self.ns, pod_name, "--tail=30", check=False).stdout)
        return "\n".join(out)

    def run_to_end(self, obj, timeout=300):
        self.apply(obj)
        name = obj["metadata"]["name"]
        try:
            status = self.wait_phase(name, ["Succeeded", "Failed"], timeout=timeout)
        except AssertionError:
            print(self.gang_state(name))
            raise
        self.assertEqual(status["phase"], "Succeeded", self.gang_state(name))
        return status

    def kept_ranks(self, name, workers):
        data = self.cp.get_json("-n", self.ns, "configmap", f"{name}-results")["data"]
        return [json.loads(data[f"rank-{r}.json"]) for r in range(workers)]

    def test_fmnist_k2_over_mpi_reaches_its_goal_with_glooss_parameters(self):
        """Same seed, same arithmetic (a sum of two is the same either way), another transport:
        the final parameters are the same to the bit."""
        mpi = self.run_to_end(benchmark("fm-mpi", "fmnist", "mpi", runPolicy={"cleanPodPolicy": "None"}), timeout=100)
        self.assertTrue(mpi["results"]["goalReached"], mpi["results"])
        self.assertEqual(mpi["workers"]["succeeded"], 2)
        ranks = self.kept_ranks("fm-mpi", 2)
        self.assertEqual({r["backend"] for r in ranks}, {"mpi"})
        self.assertTrue(ranks[0]["environment"]["mpiVersion"].startswith("Open MPI"), ranks[0]["environment"])
        gloo = self.run_to_end(benchmark("fm-gloo", "fmnist", "gloo"))
        gloo_ranks = self.kept_ranks("fm-gloo", 2)
        print(f"fmnist k=2: mpi {mpi['results']['epochs']} epochs, TTA {mpi['results']['timeToAccuracySeconds']:.1f} s; "
              f"gloo {gloo['results']['epochs']} epochs, TTA {gloo['results']['timeToAccuracySeconds']:.1f} s")
        self.assertEqual(mpi["results"]["epochs"], gloo["results"]["epochs"])
        self.assertEqual([r["parameterDigest"] for r in ranks], [r["parameterDigest"] for r in gloo_ranks])
        self.assertEqual(ranks[0]["parameterDigest"], ranks[1]["parameterDigest"])


if __name__ == "__main__":
    unittest.main()
