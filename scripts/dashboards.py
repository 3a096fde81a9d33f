#!/usr/bin/env python3
"""Writes ergobench's Grafana dashboards, charts/ergobench/dashboards/*.json, from the panel
lists below, so that every panel is built the same way. `--check` exits 1 when the committed
files differ from what this writes (the chart test runs it).

Every query selects with =~ on the template variables, so "All" (regex .*) works, and uses
$__rate_interval, which Grafana sizes from the scrape interval. tests/integration/
test_observability.py runs each expression on a real Prometheus and wants data from each.
"""

import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "charts", "ergobench", "dashboards")
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
RUN = 'namespace=~"$namespace", benchmark=~"$benchmark", rank=~"$rank"'
FINISHED = 'namespace=~"$namespace", benchmark=~"$benchmark"'


def target(expr, legend, ref):
    return {"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": ref}


def panel(kind, title, unit, queries, description="", stack=False, line_at=None):
    """queries: (expr, legend) pairs; line_at: a value drawn as a red threshold line."""
    p = {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DATASOURCE,
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                    "tooltip": {"mode": "multi", "sort": "desc"}},
        "targets": [target(expr, legend, chr(ord("A") + i)) for i, (expr, legend) in enumerate(queries)],
    }
    if kind == "timeseries":
        p["fieldConfig"]["defaults"]["custom"] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 10,
                                                  "showPoints": "never",
                                                  "stacking": {"mode": "normal" if stack else "none", "group": "A"}}
    if line_at is not None:
        p["fieldConfig"]["defaults"]["thresholds"] = {
            "mode": "absolute", "steps": [{"color": "green", "value": None}, {"color": "red", "value": line_at}]}
        p["fieldConfig"]["defaults"]["custom"]["thresholdsStyle"] = {"mode": "line"}
    if kind == "bargauge":
        p["options"] = {"displayMode": "basic", "orientation": "horizontal", "showUnfilled": True,
                        "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
        for t in p["targets"]:
            t["instant"] = True
    return p


def variable(name, query, label, multi=True):
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DATASOURCE,
        "definition": query,
        "query": {"query": query, "refId": name},
        "refresh": 2,  # on time range change: runs come and go
        "includeAll": multi,
        "multi": multi,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]} if multi else {},
        "sort": 3 if name == "rank" else 1,
    }


def dashboard(uid, title, description, variables, rows):
    """rows: lists of panels laid out side by side, 24 grid units wide, 8 high."""
    panels, y = [], 0
    for row in rows:
        width = 24 // len(row)
        for i, p in enumerate(row):
            p["gridPos"] = {"x": i * width, "y": y, "w": width, "h": 8}
            p["id"] = len(panels) + 1
            panels.append(p)
        y += 8
    datasource = {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus",
                  "current": {}, "hide": 0}
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["ergobench"],
        "editable": True,
        "schemaVersion": 39,
        "version": 1,
        "refresh": "10s",
        "time": {"from": "now-1h", "to": "now"},
        "timezone": "",
        "graphTooltip": 1,
        "templating": {"list": [datasource] + variables},
        "annotations": {"list": []},
        "links": [{"title": "ergobench dashboards", "type": "dashboards", "tags": ["ergobench"], "asDropdown": True}],
        "panels": panels,
    }


def run_dashboard():
    variables = [
        variable("namespace", "label_values(ergobench_samples_total, namespace)", "Namespace"),
        variable("benchmark", 'label_values(ergobench_samples_total{namespace=~"$namespace"}, benchmark)', "Benchmark"),
        variable("rank", 'label_values(ergobench_samples_total{namespace=~"$namespace", benchmark=~"$benchmark"}, rank)',
                 "Rank"),
    ]
    rate = "rate({metric}{{%s}}[$__rate_interval])" % RUN
    samples = rate.format(metric="ergobench_samples_total")
    phases = rate.format(metric="ergobench_phase_seconds_total")
    communication = "rate(ergobench_phase_seconds_total{%s, phase=\"communication\"}[$__rate_interval])" % RUN
    data_phase = "rate(ergobench_phase_seconds_total{%s, phase=\"data\"}[$__rate_interval])" % RUN
    # The step time of api/analysis/training_phases.h: every phase but evaluation.
    step_phases = "rate(ergobench_phase_seconds_total{%s, phase!=\"eval\"}[$__rate_interval])" % RUN
    steps = rate.format(metric="ergobench_step_duration_seconds_bucket")
    collectives = rate.format(metric="ergobench_collective_seconds_total")

    def share_of_step(seconds):  # a phase's seconds over the step's, as the communication ratio is
        return f"sum by (benchmark) ({seconds}) / sum by (benchmark) ({step_phases})"

    rows = [
        [panel("timeseries", "Throughput per rank", "short",
               [(f"sum by (benchmark, rank) ({samples})", "{{benchmark}} rank {{rank}}")],
               "Training samples per second, each rank."),
         panel("timeseries", "Throughput, all ranks", "short",
               [(f"sum by (benchmark) ({samples})", "{{benchmark}}")],
               "Training samples per second of the whole run.")],
        [panel("timeseries", "Step time", "s",
               [(f"histogram_quantile({q}, sum by (benchmark, le) ({steps}))", "{{benchmark}} p%d" % round(q * 100))
                for q in (0.5, 0.9, 0.99)],
               "Quantiles of one training step's duration, from the step histogram."),
         panel("timeseries", "Phase split", "s",
               [(f"sum by (phase) ({phases})", "{{phase}}")],
               "Seconds per second spent in each phase of a step, all selected ranks.", stack=True),
         panel("timeseries", "Communication ratio", "percentunit",
               [(share_of_step(communication), "{{benchmark}} waited"),
                (share_of_step(collectives), "{{benchmark}} collectives")],
               "Time waiting in collectives over the step time (data, forward, backward, optimizer and "
               "communication; evaluation is outside it), and the collectives' whole time over the same: with "
               "gradientSync overlap, the gap between them is what backward hid.")],
        [panel("timeseries", "Tokens per second (language models)", "short",
               [(f"sum by (benchmark) ({rate.format(metric='ergobench_tokens_total')})", "{{benchmark}}")],
               "Training tokens per second of the whole run (task gpt)."),
         panel("timeseries", "Validation loss (language models)", "short",
               [(f"max by (benchmark) (ergobench_eval_loss{{{RUN}}})", "{{benchmark}}")],
               "Mean cross-entropy per token of the last evaluation, in nats (task gpt).")],
        [panel("timeseries", "BLEU (translation)", "short",
               [(f"max by (benchmark) (ergobench_eval_bleu{{{RUN}}})", "{{benchmark}}")],
               "Corpus BLEU of the last evaluation's translations, sacreBLEU's 0 to 100 (tasks 4a and 4b); time to the "
               "goal is the run's time to accuracy."),
         panel("timeseries", "Loss scale (mixed precision)", "short",
               [(f"max by (benchmark) (ergobench_loss_scale{{{RUN}}})", "{{benchmark}}")],
               "The dynamic loss scale of fp16 training after each step: halved on an inf or NaN gradient, "
               "doubled after a window of clean updates."),
         panel("timeseries", "Skipped updates (mixed precision)", "short",
               [(f"max by (benchmark) (ergobench_skipped_updates_total{{{RUN}}})", "{{benchmark}}")],
               "Updates skipped for an inf or NaN gradient norm, so far (every rank skips alike).")],
        [panel("timeseries", "Validation accuracy", "percentunit",
               [(f"max by (benchmark) (ergobench_eval_accuracy_ratio{{{RUN}}})", "{{benchmark}}")],
               "Accuracy of the last evaluation (every rank evaluates the same model)."),
         panel("timeseries", "Training loss", "short",
               [(f"avg by (benchmark) (ergobench_train_loss{{{RUN}}})", "{{benchmark}}")],
               "Mean training loss of the last epoch, averaged over ranks."),
         panel("timeseries", "Epoch", "short",
               [(f"max by (benchmark) (ergobench_epoch{{{RUN}}})", "{{benchmark}}")])],
        [panel("timeseries", "Peak memory per rank", "bytes",
               [(f"max by (benchmark, kind) (ergobench_memory_bytes{{{RUN}, kind=~\"peak_tensor|peak_resident\"}})",
                 "{{benchmark}} {{kind}}")],
               "The most any rank held: peak RSS, and torch's tensor bytes at their peak over the training steps "
               "(updated at every evaluation)."),
         panel("timeseries", "Tensors at the peak, by kind", "bytes",
               [(f"max by (kind) (ergobench_memory_bytes{{{RUN}, kind!~\"peak_.*\"}})", "{{kind}}")],
               "What the tensor peak held: parameters, gradients and optimizer state as the gradient sync keeps "
               "them (ZeRO stages shard them), and activations.", stack=True)],
        [panel("timeseries", "Power per device", "watt",
               [(f"sum by (rank, device) (ergobench_power_watts{{{RUN}}})", "rank {{rank}} {{device}}")],
               "Power over each energy sampling interval (RAPL, NVML, AMD GPU, Grace hwmon)."),
         panel("timeseries", "Energy per device", "joule",
               [(f"sum by (rank, device, domain) (ergobench_energy_joules_total{{{RUN}}})",
                 "rank {{rank}} {{device}} {{domain}}")],
               "Energy counted since each rank started, by device and domain."),
         panel("timeseries", "All-reduce bus bandwidth (task 0a)", "Bps",
               [(f"max by (benchmark, bytes) (ergobench_allreduce_bus_bandwidth_bytes_per_second{{{RUN}}})",
                 "{{benchmark}} {{bytes}} B")],
               "nccl-tests bus bandwidth by message size.")],
        [panel("timeseries", "Data read rate", "Bps",
               [(f"sum by (benchmark) ({rate.format(metric='ergobench_data_read_bytes_total')})", "{{benchmark}}")],
               "Bytes of the data set's files as the readers read them (compressed where the files are) per second, "
               "all ranks: what the storage under the data set is asked for."),
         panel("timeseries", "Data wait share", "percentunit",
               [(share_of_step(data_phase), "{{benchmark}}")],
               "The step time spent waiting for data (the data phase over data, forward, backward, optimizer and "
               "communication): over 10% (the red line) the run is I/O-bound, MLPerf Storage's 90% utilisation "
               "rule, as the report marks it.", line_at=0.1)],
    ]
    return dashboard("ergobench-run", "ergobench / a run",
                     "One Benchmark as it trains: throughput, step time, phases, accuracy, power.", variables, rows)


def benchmarks_dashboard():
    variables = [
        variable("namespace", "label_values(ergobench_benchmark_samples_per_second, namespace)", "Namespace"),
        variable("benchmark", 'label_values(ergobench_benchmark_samples_per_second{namespace=~"$namespace"}, benchmark)',
                 "Benchmark"),
    ]
    legend = "{{benchmark}} ({{task}}, k={{workers}})"
    by_system = "{{instance_type}} {{region}} ({{task}})"
    # Same labels on both: a plain division keeps task, backend and system for the match below.
    per_worker = f"ergobench_benchmark_samples_per_second{{{FINISHED}}} / ergobench_benchmark_workers{{{FINISHED}}}"
    series = "namespace, task, backend, instance_type, region"
    single_worker = (f'max by ({series}) '
                     '(ergobench_benchmark_samples_per_second{namespace=~"$namespace", workers="1"})')
    rows = [
        [panel("bargauge", "Time to accuracy", "s",
               [(f"ergobench_benchmark_time_to_accuracy_seconds{{{FINISHED}}}", legend)],
               "MLPerf rules: from before the data is first touched to the first evaluation at the goal."),
         panel("bargauge", "Throughput", "short",
               [(f"ergobench_benchmark_samples_per_second{{{FINISHED}}}", legend)],
               "Training samples per second, all workers, after warm-up.")],
        [panel("bargauge", "Energy to accuracy", "watth",
               [(f"ergobench_benchmark_energy_to_accuracy_joules{{{FINISHED}}} / 3600", legend)],
               "Energy of all workers until the goal (needs energy meters on the nodes)."),
         panel("bargauge", "Cost to accuracy", "short",
               [(f"ergobench_benchmark_cost_to_accuracy{{{FINISHED}}}", legend + " {{currency}}")],
               "Until the goal, at the price catalog's price of the nodes' instance type and region "
               "(or spec.pricing).")],
        [panel("bargauge", "Scaling efficiency", "percentunit",
               [(f"({per_worker}) / on ({series}) group_left () {single_worker}", legend)],
               "Samples/s per worker over the k=1 run of the same task and backend on the same system "
               "(instance type and region) in the namespace (1 is linear)."),
         panel("bargauge", "Energy and cost of the timed region", "short",
               [(f"ergobench_benchmark_energy_joules{{{FINISHED}}} / 3600", legend + " Wh"),
                (f"ergobench_benchmark_cost{{{FINISHED}}}", legend + " {{currency}}")])],
        # Systems compared: the best run of each task on each instance type and region.
        [panel("bargauge", "Cost to accuracy by system", "short",
               [(f"min by (task, instance_type, region, currency) (ergobench_benchmark_cost_to_accuracy{{{FINISHED}}})",
                 by_system + " {{currency}}")],
               "The cheapest run to the goal of each task on each instance type and region."),
         panel("bargauge", "Energy to accuracy by system", "watth",
               [(f"min by (task, instance_type, region) (ergobench_benchmark_energy_to_accuracy_joules{{{FINISHED}}}) "
                 "/ 3600", by_system)],
               "The most frugal run to the goal of each task on each instance type and region."),
         panel("bargauge", "Carbon to accuracy by system", "massg",
               [(f"min by (task, instance_type, region) (ergobench_benchmark_carbon_to_accuracy_grams{{{FINISHED}}})",
                 by_system)],
               "gCO2e until the goal: energy times the region's grid intensity from the price catalog.")],
    ]
    return dashboard("ergobench-benchmarks", "ergobench / across benchmarks",
                     "Finished Benchmarks side by side: time, energy and cost to accuracy, scaling.", variables, rows)


def operator_dashboard():
    variables = [variable("instance", "label_values(ergobench_operator_workqueue_depth, instance)", "Operator")]
    sel = 'instance=~"$instance"'
    rows = [
        [panel("timeseries", "Reconciles", "ops",
               [(f"sum by (controller, result) (rate(ergobench_operator_reconcile_total{{{sel}}}[$__rate_interval]))",
                 "{{controller}} {{result}}")],
               "Reconciles per second by controller (benchmark, sweep, dataset) and result: success, "
               "requeue_after, error.", stack=True),
         panel("timeseries", "Reconcile errors", "percentunit",
               [(f'sum(rate(ergobench_operator_reconcile_total{{{sel}, result="error"}}[$__rate_interval])) '
                 f"/ sum(rate(ergobench_operator_reconcile_total{{{sel}}}[$__rate_interval]))", "errors")],
               "Share of reconciles that failed and were retried with backoff.")],
        [panel("timeseries", "Reconcile duration", "s",
               [(f"histogram_quantile({q}, sum by (le) "
                 f"(rate(ergobench_operator_reconcile_duration_seconds_bucket{{{sel}}}[$__rate_interval])))",
                 "p%d" % round(q * 100)) for q in (0.5, 0.99)]),
         panel("timeseries", "Work queue depth", "short",
               [(f"sum by (controller) (ergobench_operator_workqueue_depth{{{sel}}})", "{{controller}}")])],
        [panel("timeseries", "Benchmarks by phase", "short",
               [(f"sum by (phase) (ergobench_operator_benchmarks{{{sel}}})", "{{phase}}")]),
         panel("timeseries", "Kubernetes API requests", "reqps",
               [(f"sum by (verb) (rate(ergobench_operator_api_requests_total{{{sel}}}[$__rate_interval]))",
                 "{{verb}}")])],
    ]
    return dashboard("ergobench-operator", "ergobench / operator",
                     "ergobench-operator: reconciles, errors, queue, Benchmarks by phase, API load.", variables, rows)


DASHBOARDS = {"run.json": run_dashboard, "benchmarks.json": benchmarks_dashboard, "operator.json": operator_dashboard}


def main():
    check = sys.argv[1:] == ["--check"]
    stale = []
    for name, build in DASHBOARDS.items():
        text = json.dumps(build(), indent=2, sort_keys=True) + "\n"
        path = os.path.join(OUT, name)
        if check:
            with open(path) as f:
                if f.read() != text:
                    stale.append(path)
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("dashboards differ from scripts/dashboards.py: " + ", ".join(stale) + "; run scripts/dashboards.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
