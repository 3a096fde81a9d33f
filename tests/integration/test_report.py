"""`ergobench report` on recorded results in the real schema (tests/cli/report/testdata):
the JSON table's numbers, each SVG chart parsed as XML with the expected series and points,
and each chart rendered by a real browser (Debian's headless Chromium) to a PNG that is not
blank."""

import json
import os
import subprocess
import unittest
import xml.etree.ElementTree as ET

from harness import CHROMIUM, ErgobenchTestCase, png_pixels, screenshot

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "../cli/report/testdata"))
SVG = "{http://www.w3.org/2000/svg}"


# The fixtures' rank-0.mllog: three epochs of 60000 samples each, at these seconds after run_start.
EPOCH_SECONDS = {"fmnist-k1": ("14", "27", "40"), "fmnist-k2": ("9", "17", "25"), "fmnist-k4": ("7", "13.5", "20")}
VALUES = {"eval_accuracy": ("0.72", "0.81", "0.86"), "eval_loss": ("0.55", "0.48", "0.4"), "train_loss": ("0.62", "0.45", "0.38")}
CURVES = {}
for key, values in VALUES.items():
    CURVES[f"{key}-time.svg"] = {run: list(zip(seconds, values)) for run, seconds in EPOCH_SECONDS.items()}
    CURVES[f"{key}-samples.svg"] = {run: list(zip(("60000", "120000", "180000"), values)) for run in EPOCH_SECONDS}


class ReportTest(ErgobenchTestCase):
    def report(self, *args):
        run = self.ergobench("report", FIXTURES, *args)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout

    def test_json_table(self):
        rows = {r["benchmark"]: r for r in json.loads(self.report("--format", "json"))}
        self.assertEqual(rows["fmnist-k4"]["speedup"], 2.0)
        self.assertEqual(rows["fmnist-k4"]["scalingEfficiency"], 0.5)
        self.assertEqual(rows["fmnist-k4"]["priceIndex"], 2.0)
        self.assertEqual(rows["fmnist-k2"]["speedup"], 1.6)
        self.assertEqual(rows["fmnist-k8"]["phase"], "Failed")
        self.assertNotIn("speedup", rows["fmnist-k8"])

    def test_charts_hold_their_series_and_render(self):
        charts = os.path.join(self.dir, "charts")
        self.report("--charts", charts)
        expected = {
            "throughput.svg": {"fmnist / unknown / gloo": [("1", "800"), ("2", "1500"), ("4", "2400")]},
            "time-to-accuracy.svg": {"fmnist / unknown / gloo": [("1", "40"), ("2", "25"), ("4", "20")]},
            # By time to accuracy, which every run reached: 40/25 and 40/20 over k=1.
            "speedup.svg": {"fmnist / unknown / gloo": [("1", "1"), ("2", "1.6"), ("4", "2")]},
            "scaling-efficiency.svg": {"fmnist / unknown / gloo": [("1", "1"), ("2", "0.8"), ("4", "0.5")]},
            "communication.svg": {"data and compute": [("fmnist-k2", "85"), ("fmnist-k4", "70")],
                                  "communication": [("fmnist-k2", "15"), ("fmnist-k4", "30")]},
            "pareto-time-cost.svg": {"unknown / fmnist": [("40", "0.002324"), ("25", "0.002906"), ("20", "0.004649")]},
            "pareto-time-energy.svg": {"unknown / fmnist": [("40", "1200"), ("25", "1500"), ("20", "2000")]},
            "energy-per-sample.svg": {"joules per sample": [("fmnist-k1", "0.025"), ("fmnist-k2", "0.031"),
                                                    ("fmnist-k4", "0.042")]},
        }
        expected.update(CURVES)
        self.assertEqual(sorted(os.listdir(charts)), sorted(expected))
        for name, series in expected.items():
            root = ET.parse(os.path.join(charts, name)).getroot()
            self.assertEqual(root.tag, SVG + "svg", name)
            found = {}
            for group in root.iter(SVG + "g"):
                if group.get("class") != "series":
                    continue
                marks = [e for e in group if e.tag in (SVG + "circle", SVG + "rect")]
                found[group.get("data-series")] = [(m.get("data-x"), m.get("data-y")) for m in marks]
            self.assertEqual(found, series, name)

        if CHROMIUM is None:
            self.skipTest("chromium is not installed (scripts/install-deps.sh --tests installs it)")
        for name in expected:
            png = os.path.join(self.dir, name + ".png")
            screenshot(os.path.join(charts, name), png, f"{self.dir}/chromium")
            self.assertTrue(os.path.exists(png), f"Chromium rendered no {name}")
            # A blank page decompresses to a handful of byte values; a chart to many.
            self.assertGreater(len(set(png_pixels(png))), 20, f"{name} rendered blank")

    def test_the_html_page_holds_every_chart_and_renders_in_chromium_without_errors(self):
        """`report --html`: one page with the table and every chart inline (the same SVG as
        --charts writes), opened by a real headless Chromium from a file with no network: the
        DOM it built has every figure and row, the console has no error, and the page is drawn."""
        page = os.path.join(self.dir, "report.html")
        charts = os.path.join(self.dir, "charts")
        self.report("--html", page, "--charts", charts)
        with open(page) as f:
            html = f.read()
        for name in os.listdir(charts):
            with open(os.path.join(charts, name)) as f:
                self.assertIn(f'<figure class="chart" id="{name}">\n' + f.read() + "</figure>", html, name)
        self.assertEqual(html.count("<figure"), len(os.listdir(charts)))
        self.assertNotIn("<script", html)
        if CHROMIUM is None:
            self.skipTest("chromium is not installed (scripts/install-deps.sh --tests installs it)")
        profile = os.path.join(self.dir, "chromium")
        dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              "--disable-background-networking", "--disable-component-update", "--disable-sync",
                              "--enable-logging=stderr", "--v=0", f"--user-data-dir={profile}", "--dump-dom",
                              "file://" + page], capture_output=True, text=True, timeout=120)
        self.assertEqual(dom.returncode, 0, dom.stderr)
        for name in os.listdir(charts):
            self.assertIn(f'id="{name}"', dom.stdout)
        self.assertEqual(dom.stdout.count("<svg"), len(os.listdir(charts)))
        for run in ("fmnist-k1", "fmnist-k2", "fmnist-k4", "fmnist-k8"):
            self.assertIn(f"<td>{run}</td>", dom.stdout)
        console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Failed to load" in line]
        self.assertEqual(console, [], "the page logged errors or tried to load something")
        png = os.path.join(self.dir, "report.png")
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                        f"--user-data-dir={profile}", "--window-size=1280,2400", f"--screenshot={png}",
                        "file://" + page], capture_output=True, timeout=120)
        self.assertGreater(len(set(png_pixels(png))), 20, "the page rendered blank")

    def test_missing_results_are_named(self):
        run = self.ergobench("report", os.path.join(self.dir, "nowhere"))
        self.assertEqual(run.returncode, 2)
        self.assertIn("nowhere: no such result directory", run.stderr)


if __name__ == "__main__":
    unittest.main()
