"""The parts of `ergobench cluster` that decide, without root: rates and delays as users write
them, the tc commands a link gets, where each node lives, and the command's own input. Every
refusal names the option; hostile input is refused, never a traceback."""

import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
sys.path.insert(0, os.path.join(ROOT, "kube/cluster"))

import cluster_command  # noqa: E402
import network  # noqa: E402
import runc_node_sysfs  # noqa: E402
from network import InputError  # noqa: E402


class RateTest(unittest.TestCase):
    def test_tc_units_in_any_case(self):
        self.assertEqual(7.5e9, network.parse_rate("7.5Gbit"))
        self.assertEqual(500e6, network.parse_rate("500mbit"))
        self.assertEqual(1e9, network.parse_rate(" 1GBIT "))
        self.assertEqual(64e3, network.parse_rate("64kbit"))
        self.assertEqual(200e9, network.parse_rate("0.2Tbit"))

    def test_refusals_name_the_option(self):
        for text in ("", "1", "1Gb", "1 Gbyte", "-1Gbit", "1e9bit", "1,5Gbit", "Gbit", "1Gbit/s", "0bit", "500Tbit"):
            with self.subTest(text=text), self.assertRaises(InputError) as caught:
                network.parse_rate(text, "--rate")
            self.assertTrue(str(caught.exception).startswith("--rate: "), caught.exception)

    def test_hostile_input_is_refused_not_crashed(self):
        rng = random.Random(37)
        alphabet = "0123456789.gGbBiItTkKmM \t\n-+eE/%\x00\u00e9\U0001f600"
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
            for parse in (network.parse_rate, network.parse_delay):
                try:
                    parse(text)
                except InputError:
                    pass
        with self.assertRaises(InputError):
            network.parse_rate("9" * 100000 + "Gbit")
        with self.assertRaises(InputError):
            network.parse_rate(None)

    def test_format_is_what_parse_reads(self):
        for rate in (8e3, 64e3, 200e6, 1e9, 7.5e9, 100e9):
            self.assertEqual(rate, network.parse_rate(network.format_rate(rate)))
        self.assertEqual("7.5Gbit", network.format_rate(7.5e9))


class DelayTest(unittest.TestCase):
    def test_units(self):
        self.assertAlmostEqual(50e-6, network.parse_delay("50us"))
        self.assertAlmostEqual(2e-3, network.parse_delay("2ms"))
        self.assertAlmostEqual(0.5, network.parse_delay("0.5s"))

    def test_refusals(self):
        for text in ("", "50", "50ns", "-1ms", "11s", "1min"):
            with self.subTest(text=text), self.assertRaises(InputError) as caught:
                network.parse_delay(text)
            self.assertTrue(str(caught.exception).startswith("--link-delay: "), caught.exception)


class ShapingTest(unittest.TestCase):
    def test_a_rate_is_a_token_bucket_of_four_milliseconds(self):
        self.assertEqual([["tc", "qdisc", "del", "dev", "eth0", "root"],
                          ["tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "tbf", "rate",
                           "1000000000bit", "burst", "500000", "latency", "50ms"]],
                         network.shaping_commands("eth0", 1e9))

    def test_the_bucket_holds_4_ms_at_the_rate_and_at_least_two_frames(self):
        # A bigger bucket is a link faster than its rate after each pause: a 64 KiB floor let
        # fmnist's 82 KB gradients cross a 20 Mbit/s link at 2.7 times its rate.
        self.assertEqual(10000, network.tbf_burst_bytes(20e6))
        self.assertEqual(100000, network.tbf_burst_bytes(200e6))
        self.assertEqual(3028, network.tbf_burst_bytes(1e6))  # 4 ms is 500 bytes, less than a frame

    def test_a_delay_is_netem_with_the_bucket_under_it(self):
        commands = network.shaping_commands("ebsw0p2", 7.5e9, 50e-6)
        self.assertEqual(["tc", "qdisc", "add", "dev", "ebsw0p2", "root", "handle", "1:", "netem", "delay", "50us",
                          "limit", "100000"], commands[1])
        self.assertEqual(["tc", "qdisc", "add", "dev", "ebsw0p2", "parent", "1:1", "handle", "10:", "tbf", "rate",
                          "7500000000bit", "burst", "3750000", "latency", "50ms"], commands[2])

    def test_nothing_leaves_the_link_unshaped(self):
        self.assertEqual([["tc", "qdisc", "del", "dev", "eth0", "root"]], network.shaping_commands("eth0"))


class NodeAddressTest(unittest.TestCase):
    def test_where_each_node_lives(self):
        node = network.NodeAddress(3)
        self.assertEqual(("ergobench-node3", "ergobench-node3", "ebsw0p3", "10.250.0.13", "10.244.3.0/24",
                          "10.244.3.1"),
                         (node.name, node.netns, node.host_port, node.address, node.pod_cidr, node.pod_gateway))
        last = network.NodeAddress(network.MAX_NODES)
        self.assertEqual(("10.250.0.210", "10.244.200.0/24"), (last.address, last.pod_cidr))
        self.assertLessEqual(len(last.host_port), 15)  # IFNAMSIZ

    def test_counts_outside_the_network_are_refused(self):
        for count in (0, -1, network.MAX_NODES + 1):
            with self.subTest(count=count), self.assertRaisesRegex(InputError, "^--nodes: "):
                network.NodeAddress(count)


class NodeSysfsTest(unittest.TestCase):
    """What each node's runc does to a container's OCI spec (runc_node_sysfs.py)."""

    def test_the_hosts_sysfs_mounts_come_from_the_nodes_own(self):
        with tempfile.TemporaryDirectory() as bundle:
            spec = {"process": {"args": ["ergobench-energy-agent"], "env": []},
                    "mounts": [{"destination": "/host/sys/class", "source": "/d/sys/class"},
                               {"destination": "/host/sys/devices", "source": "/d/sys/devices"},
                               {"destination": "/etc/hosts", "source": "/d/system/hosts"},
                               {"destination": "/proc", "type": "proc"}]}
            with open(os.path.join(bundle, "config.json"), "w") as f:
                json.dump(spec, f)
            runc_node_sysfs.add_node_sysfs(bundle, "/d/ergobench-node2")
            runc_node_sysfs.redirect_host_sysfs(bundle, "/d/sys", "/d/ergobench-node2/sys")
            with open(os.path.join(bundle, "config.json")) as f:
                written = json.load(f)
        self.assertEqual(["/d/ergobench-node2/sys/class", "/d/ergobench-node2/sys/devices", "/d/system/hosts", "",
                          "/d/ergobench-node2"], [m.get("source", "") for m in written["mounts"]])
        self.assertEqual(["ERGOBENCH_SYSFS_ROOT=/ergobench-node-sysfs"], written["process"]["env"])


class CommandInputTest(unittest.TestCase):
    """`ergobench cluster up`'s options, parsed as the command does, before anything runs."""

    def spec(self, *argv):
        return cluster_command.spec_of(cluster_command.parser().parse_args(["up", *argv]))

    def test_labels_for_every_node_and_for_one(self):
        spec = self.spec("--nodes", "2", "--instance-type", "m5.large", "--zone", "a", "--label", "team=ml",
                         "--node-label", "2:node.kubernetes.io/instance-type=p4d.24xlarge", "--link-rate", "10Gbit")
        self.assertEqual({1: {"team": "ml", "node.kubernetes.io/instance-type": "m5.large",
                              "topology.kubernetes.io/zone": "a"},
                          2: {"team": "ml", "node.kubernetes.io/instance-type": "p4d.24xlarge",
                              "topology.kubernetes.io/zone": "a"}}, spec.labels)
        self.assertEqual((2, 10e9, None), (spec.nodes, spec.link_rate, spec.link_delay))

    def test_refusals_name_the_option(self):
        cases = {("--label", "novalue"): "--label: 'novalue' is not KEY=VALUE",
                 ("--label", "a b=c"): "--label: 'a b' is not a label key",
                 ("--label", "x" * 64 + "=v"): "--label: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is not a label",
                 ("--label", "Bad_Prefix/x=v"): "--label: 'Bad_Prefix/x' is not a label key",
                 ("--instance-type", "m5 large"): "--instance-type: 'm5 large' is not a label value",
                 ("--node-label", "1:a=" + "v" * 64): "--node-label: 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...' is not",
                 ("--node-label", "x:a=b"): "--node-label: 'x:a=b' is not N:KEY=VALUE",
                 ("--node-label", "4:a=b"): "--node-label: node 4 is outside 1 to 1",
                 ("--nodes", "201"): "--nodes: 201 is outside 1 to 200",
                 ("--nodes", "1000000000", "--label", "a=b"): "--nodes: 1000000000 is outside 1 to 200",
                 ("--link-rate", "x" * 5000): "--link-rate: ",
                 ("--link-delay", "5"): "--link-delay: '5' is not a delay"}
        for argv, message in cases.items():
            with self.subTest(argv=argv[0]), self.assertRaises((InputError, cluster_command.UsageError)) as caught:
                self.spec(*argv)
            self.assertTrue(str(caught.exception).startswith(message), caught.exception)

    def test_node_sysfs_is_one_sys_folder_a_node(self):
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "ergobench-node1", "sys"))
            with self.assertRaises(cluster_command.UsageError) as caught:
                self.spec("--nodes", "2", "--node-sysfs", folder)
            self.assertEqual(f"--node-sysfs: '{folder}' has no ergobench-node2/sys: one sys/ folder a node",
                             str(caught.exception))
            os.makedirs(os.path.join(folder, "ergobench-node2", "sys"))
            self.assertEqual(folder, self.spec("--nodes", "2", "--node-sysfs", folder).node_sysfs)
            # What the energy agent's hostPath mounts need to find on the host.
            self.assertTrue(os.path.isdir(os.path.join(folder, "sys", "class")))
            self.assertTrue(os.path.isdir(os.path.join(folder, "sys", "devices")))

    def test_a_folder_that_is_not_a_clusters_is_never_deleted(self):
        with tempfile.TemporaryDirectory() as home:
            with open(os.path.join(home, "thesis.tex"), "w") as f:
                f.write("years of work")
            with self.assertRaisesRegex(cluster_command.UsageError, "^--workdir: .* holds files of something other"):
                cluster_command.clear_workdir(home)
            self.assertEqual(["thesis.tex"], os.listdir(home))
            os.makedirs(os.path.join(home, "old", "pki"))
            cluster_command.clear_workdir(os.path.join(home, "old"))
            self.assertFalse(os.path.exists(os.path.join(home, "old")))

    def test_bad_input_exits_2_before_anything_runs(self):
        for argv in (["up", "--nodes", "0"], ["up", "--link-rate", "fast"], ["up", "--nodes"], ["frobnicate"]):
            result = subprocess.run([sys.executable, os.path.join(ROOT, "kube/cluster/cluster_command.py"), *argv],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            with self.subTest(argv=argv):
                self.assertEqual(2, result.returncode, result.stderr)
                self.assertNotIn("Traceback", result.stderr)


if __name__ == "__main__":
    unittest.main()
