// ergobench: the command line. `run` executes Benchmarks on this machine; `validate`
// checks them and prints the resolved spec; `report` compares finished runs (result folders
// and a cluster's Benchmarks) as tables and charts; `results export` writes a cluster run's
// kept results as a result folder; `tasks` lists the catalog; `completion` writes a shell's
// completion script; `version` (and --version) prints the version. Exit codes: cli/exit_codes.h.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>

#include "api/analysis/regression.h"
#include "api/analysis/repeats.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/load.h"
#include "base/yaml_json.h"
#include "cli/cluster/cluster_run.h"
#include "cli/cluster_command.h"
#include "cli/completion.h"
#include "cli/exit_codes.h"
#include "cli/mllog_command.h"
#include "cli/output_format.h"
#include "cli/report/baseline_report.h"
#include "cli/report/charts.h"
#include "cli/report/html_report.h"
#include "cli/report/report.h"
#include "cli/results/results_export.h"
#include "cli/run_command.h"
#include "kube/client/api_error.h"
#include "kube/client/client.h"
#include "kube/client/cpprest_transport.h"
#include "kube/client/kube_config.h"

namespace {

int Validate(const std::vector<std::string>& files, const std::string& output) {
  int exit_code = ergobench::kExitOk;
  for (const std::string& file : files) {
    auto loaded = ergobench::LoadBenchmarkFile(file);
    if (!loaded.ok()) {
      std::cerr << "ergobench: " << loaded.status().message() << "\n";
      exit_code = ergobench::kExitBadInput;
      continue;
    }
    std::vector<nlohmann::json> documents;
    for (const ergobench::Benchmark& b : *loaded) documents.push_back(ergobench::EncodeBenchmark(b));
    std::cout << *ergobench::FormatDocuments(documents, output);
  }
  return exit_code;
}

struct ClusterSource {
  bool enabled = false;
  std::vector<std::string> kubeconfigs;  // empty: the default kubeconfig
  std::vector<std::string> contexts;     // of each kubeconfig; empty: its current context
  std::string namespace_name;            // empty: all namespaces
};

// The Benchmarks of a cluster, with their status, in the same schema as local results; and
// those deleted whose results were kept (spec.runPolicy.keepResults).
ergobench::StatusOr<std::vector<ergobench::Benchmark>> ReadCluster(const ClusterSource& source,
                                                                   const std::string& kubeconfig,
                                                                   const std::string& context,
                                                                   ergobench::AllreduceTables* tables,
                                                                   ergobench::TrainingCurves* curves) {
  namespace kube = ergobench::kube;
  ASSIGN_OR_RETURN(const kube::KubeConfig config, kube::ResolveKubeConfig(kubeconfig, context));
  ASSIGN_OR_RETURN(std::unique_ptr<kube::HttpTransport> transport, kube::NewCpprestTransport(config));
  kube::KubeClient client(transport.get());
  ASSIGN_OR_RETURN(const kube::ObjectList list, client.List(kube::Benchmarks(), source.namespace_name));
  std::vector<ergobench::Benchmark> out;
  std::set<std::string> uids;
  for (const auto& item : list.items) {
    ergobench::FieldErrors errors;
    out.push_back(ergobench::DecodeBenchmark(item, &errors));  // the schema admitted it; report what decodes
    uids.insert(out.back().metadata.uid);
  }
  kube::ListOptions labelled;
  labelled.label_selector = ergobench::kBenchmarkLabel;
  ASSIGN_OR_RETURN(const kube::ObjectList config_maps, client.List(kube::ConfigMaps(), source.namespace_name, labelled));
  for (ergobench::Benchmark& kept : ergobench::KeptResultsOfDeletedBenchmarks(config_maps.items, uids)) {
    out.push_back(std::move(kept));
  }
  tables->merge(ergobench::AllreduceTablesOf(config_maps.items));
  curves->merge(ergobench::TrainingCurvesOf(config_maps.items));
  return out;
}

struct ExportOptions {
  std::vector<std::string> names;
  std::string to = "ergobench-results";
  std::string kubeconfig;
  std::string namespace_name;  // empty: the kubeconfig's
};

// Each Benchmark's results ConfigMap, written as <to>/<name>/ the way `ergobench run` leaves it.
int ExportResults(const ExportOptions& options) {
  namespace kube = ergobench::kube;
  auto failed = [](const std::string& what, const ergobench::Status& status) {
    std::cerr << "ergobench results export: " << what << status.message() << "\n";
    return ergobench::kExitCluster;
  };
  auto config = kube::ResolveKubeConfig(options.kubeconfig);
  if (!config.ok()) return failed("", config.status());
  auto transport = kube::NewCpprestTransport(*config);
  if (!transport.ok()) return failed("", transport.status());
  kube::KubeClient client(transport->get());
  const std::string ns = options.namespace_name.empty() ? config->namespace_name : options.namespace_name;
  int exit_code = 0;
  for (const std::string& name : options.names) {
    auto config_map = client.Get(kube::ConfigMaps(), ns, name + "-results");
    if (kube::IsNotFound(config_map.status())) {
      std::cerr << "ergobench results export: " << ns << "/" << name << ": no ConfigMap " << name
                << "-results: the Benchmark has not finished, or was deleted without spec.runPolicy.keepResults\n";
      exit_code = ergobench::kExitBadInput;
      continue;
    }
    if (!config_map.ok()) return failed(ns + "/" + name + ": ", config_map.status());
    const std::string dir = (std::filesystem::path(options.to) / name).string();
    auto left_out = ergobench::WriteResultsFolder(*config_map, dir);
    if (!left_out.ok()) {
      std::cerr << "ergobench results export: " << ns << "/" << name << ": " << left_out.status().message() << "\n";
      exit_code = ergobench::kExitFailed;  // the folder could not be written
      continue;
    }
    std::cout << ns << "/" << name << " → " << dir << "/\n";
    for (const std::string& line : *left_out) std::cout << "  " << line << "\n";
  }
  return exit_code;
}

struct ReportOptions {
  std::vector<std::string> dirs = {"ergobench-results"};
  std::string format = "text";
  std::string charts_dir;
  std::string html_file;  // --html: the page of html_report.h
  ClusterSource cluster;
  std::string baseline_dir;
  std::vector<std::string> tolerances;  // FIGURE=PERCENT
};

// --tolerance FIGURE=PERCENT, each a headline figure (api/analysis/repeats.h).
ergobench::StatusOr<std::map<std::string, double>> ParseTolerances(const std::vector<std::string>& items) {
  std::map<std::string, double> out;
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    const std::string figure = item.substr(0, eq);
    char* end = nullptr;
    const double percent = eq == std::string::npos ? -1 : std::strtod(item.c_str() + eq + 1, &end);
    if (ergobench::FindHeadlineFigure(figure) == nullptr || percent < 0 || end == nullptr || *end != '\0') {
      return ergobench::Status::InvalidArgument("--tolerance " + item +
                                                ": expected FIGURE=PERCENT with a headline figure, e.g. samplesPerSecond=5");
    }
    out[figure] = percent;
  }
  return out;
}

// The runs against the baseline's, printed after the report; kExitRegressed when one regressed.
int ReportAgainstBaseline(const std::vector<ergobench::Benchmark>& runs, const ReportOptions& options) {
  auto tolerances = ParseTolerances(options.tolerances);
  auto baselines = tolerances.ok() ? ergobench::LoadResultDirectories({options.baseline_dir})
                                   : ergobench::StatusOr<std::vector<ergobench::Benchmark>>(tolerances.status());
  if (!baselines.ok()) {
    std::cerr << "ergobench report: --baseline: " << baselines.status().message() << "\n";
    return ergobench::kExitBadInput;
  }
  const auto comparisons = ergobench::CompareWithBaselineRuns(runs, *baselines, *tolerances);
  std::cout << "\n" << ergobench::FormatBaselineComparisons(comparisons, options.baseline_dir);
  const bool regressed = std::any_of(comparisons.begin(), comparisons.end(),
                                     [](const auto& c) { return ergobench::AnyRegressed(c.verdicts); });
  return regressed ? ergobench::kExitRegressed : ergobench::kExitOk;
}

int Report(const ReportOptions& options) {
  const std::vector<std::string>& dirs = options.dirs;
  const ClusterSource& cluster = options.cluster;
  const std::string& charts_dir = options.charts_dir;
  ergobench::StatusOr<std::vector<ergobench::Benchmark>> runs = std::vector<ergobench::Benchmark>{};
  ergobench::AllreduceTables allreduce_tables;
  ergobench::TrainingCurves curves;
  if (!dirs.empty()) runs = ergobench::LoadResultDirectories(dirs, &allreduce_tables, &curves);
  // Every context of every kubeconfig: clusters compared side by side.
  const std::vector<std::string> kubeconfigs = cluster.kubeconfigs.empty() ? std::vector<std::string>{""} : cluster.kubeconfigs;
  const std::vector<std::string> contexts = cluster.contexts.empty() ? std::vector<std::string>{""} : cluster.contexts;
  for (const std::string& kubeconfig : kubeconfigs) {
    for (const std::string& context : contexts) {
      if (!runs.ok() || !cluster.enabled) break;
      auto remote = ReadCluster(cluster, kubeconfig, context, &allreduce_tables, &curves);
      if (remote.ok()) {
        runs->insert(runs->end(), remote->begin(), remote->end());
      } else {
        const std::string which = (kubeconfig.empty() ? "" : kubeconfig + " ") + (context.empty() ? "" : "context " + context);
        std::cerr << "ergobench report: " << remote.status().WithContext("reading Benchmarks from the cluster " + which).message()
                  << "\n";
        return ergobench::kExitCluster;
      }
    }
  }
  if (!runs.ok()) {
    std::cerr << "ergobench report: " << runs.status().message() << "\n";
    return ergobench::kExitBadInput;
  }
  if (!charts_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(charts_dir, error);
    for (const auto& [file, svg] : ergobench::BuildReportCharts(*runs, allreduce_tables, curves)) {
      std::ofstream out(std::filesystem::path(charts_dir) / file);
      out << svg;
      if (!out) {
        std::cerr << "ergobench report: --charts: cannot write " << charts_dir << "/" << file << "\n";
        return ergobench::kExitFailed;
      }
    }
  }
  if (!options.html_file.empty()) {
    std::ofstream out(options.html_file);
    out << ergobench::HtmlReport(*runs, allreduce_tables, curves, std::string("ergobench ") + ERGOBENCH_VERSION);
    if (!out) {
      std::cerr << "ergobench report: --html: cannot write " << options.html_file << "\n";
      return ergobench::kExitFailed;
    }
  }
  // yaml: the json format's document, written as YAML.
  const bool yaml = options.format == "yaml";
  auto text = ergobench::FormatReport(ergobench::BuildReport(*runs), yaml ? "json" : options.format);
  if (!text.ok()) {
    std::cerr << "ergobench report: " << text.status().message() << "\n";
    return ergobench::kExitBadInput;
  }
  std::cout << (yaml ? "---\n" + ergobench::ToYaml(nlohmann::json::parse(*text)) : *text);
  return options.baseline_dir.empty() ? ergobench::kExitOk : ReportAgainstBaseline(*runs, options);
}

nlohmann::json CatalogJson() {
  nlohmann::json tasks = nlohmann::json::array();
  for (const ergobench::TaskDef& task : ergobench::TaskCatalog()) {
    nlohmann::json hyperparameters = nlohmann::json::array();
    for (const ergobench::HyperparameterDef& h : task.hyperparameters) {
      nlohmann::json one = {{"name", h.name}, {"default", h.default_value}, {"description", h.description}};
      if (h.min) one["minimum"] = *h.min;
      if (h.max) one["maximum"] = *h.max;
      if (!h.choices.empty()) one["choices"] = h.choices;
      hyperparameters.push_back(std::move(one));
    }
    tasks.push_back({{"id", task.id}, {"title", task.title}, {"origin", task.origin}, {"hyperparameters", hyperparameters}});
  }
  return tasks;
}

int ListTasks(const std::string& output) {
  if (output != "text") {
    std::cout << *ergobench::FormatDocuments({CatalogJson()}, output);
    return ergobench::kExitOk;
  }
  for (const ergobench::TaskDef& task : ergobench::TaskCatalog()) {
    std::cout << task.id << "\t" << task.title << " (" << task.origin << ")\n";
    for (const ergobench::HyperparameterDef& h : task.hyperparameters) {
      std::cout << "\t  " << h.name << " = " << h.default_value.dump() << "\t" << h.description << "\n";
    }
  }
  return ergobench::kExitOk;
}

// -o/--output FORMAT, checked by CLI11: an unknown format is a usage error naming the flag.
void AddOutputOption(CLI::App* cmd, std::string* output, const std::vector<std::string>& formats,
                     const std::string& what) {
  cmd->add_option("-o,--output", *output, what)->check(CLI::IsMember(formats))->capture_default_str();
}

// The options of `ergobench run`.
// `ergobench run --cluster`'s flags.
struct ClusterRun {
  bool enabled = false;
  ergobench::ClusterRunOptions options;
};

CLI::App* AddRunCommand(CLI::App* app, ergobench::RunCommandOptions* run, ClusterRun* cluster) {
  CLI::App* cmd = app->add_subcommand("run", "run Benchmarks on this machine with k local ranks");
  cmd->add_option("files", run->files, "Benchmark YAML files ('-' for stdin)")->required();
  cmd->add_option("--results-dir", run->local.results_root, "where results go, under <dir>/<name>/")
      ->capture_default_str();
  cmd->add_option("--metrics-port", run->local.metrics_port,
                  "rank i serves /metrics on this port + i; 0 picks free ports, -1 disables")
      ->capture_default_str();
  cmd->add_option("--rendezvous-timeout", run->local.rendezvous_timeout_seconds, "seconds for all ranks to join")
      ->capture_default_str();
  cmd->add_option("--runner", run->local.runner_path, "ergobench-runner binary (default: next to ergobench)");
  cmd->add_option("--mpirun", run->local.mpirun_path, "mpirun binary for backend mpi")->capture_default_str();
  cmd->add_option("--price-catalog", run->local.price_catalog_dir,
                  "a folder of price catalog .yaml files (default: $ERGOBENCH_PRICE_CATALOG, else built in)")
      ->envname("ERGOBENCH_PRICE_CATALOG");
  cmd->add_option("--price-max-age-days", run->local.price_max_age_days,
                  "prices older than this are reported stale next to the cost")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", run->quiet, "no progress line");
  AddOutputOption(cmd, &run->output, {"text", "json", "yaml"},
                  "each run's summary: a table, or the Benchmark with its status as json or yaml");
  cmd->add_flag("--cluster", cluster->enabled,
                "create them on a Kubernetes cluster (the default kubeconfig, or in-cluster) and follow them")
      ->group("On a cluster");
  cmd->add_option("--kubeconfig", cluster->options.kubeconfig, "with --cluster: this kubeconfig")->group("On a cluster");
  cmd->add_option("-n,--namespace", cluster->options.namespace_name,
                  "with --cluster: where documents without a namespace go (default: the kubeconfig's)")
      ->group("On a cluster");
  cmd->add_flag("--rm", cluster->options.remove, "with --cluster: delete what was created once it ended, or on Ctrl-C")
      ->group("On a cluster");
  cmd->add_option("--timeout", cluster->options.timeout_seconds,
                  "with --cluster: seconds to wait for them to end (0: no limit); past it the run counts as failed")
      ->check(CLI::NonNegativeNumber)
      ->group("On a cluster");
  return cmd;
}

// The options of `ergobench report`.
CLI::App* AddReportCommand(CLI::App* app, ReportOptions* report) {
  CLI::App* cmd = app->add_subcommand("report", "compare finished runs: speedup, efficiency, energy and cost");
  cmd->add_option("dirs", report->dirs, "result directories of `ergobench run`")->capture_default_str();
  cmd->add_option("-o,--output,--format", report->format, "text | markdown | csv | json | yaml")
      ->check(CLI::IsMember({"text", "markdown", "csv", "json", "yaml"}))
      ->capture_default_str();
  cmd->add_option("--charts", report->charts_dir, "also write SVG charts into this directory");
  cmd->add_option("--html", report->html_file,
                  "also write one self-contained HTML page: the table, training curves and charts");
  ClusterSource& cluster = report->cluster;
  cmd->add_flag("--cluster", cluster.enabled, "also read the Benchmarks of a cluster (default kubeconfig)");
  cmd->add_option("--kubeconfig", cluster.kubeconfigs, "read the Benchmarks of this kubeconfig's cluster (repeatable)");
  cmd->add_option("--context", cluster.contexts, "read the Benchmarks of this kubeconfig context (repeatable)");
  cmd->add_option("--namespace", cluster.namespace_name, "with --cluster: only this namespace");
  cmd->add_option("--baseline", report->baseline_dir,
                  "judge each run against the run of the same name in these results; exit 3 on a regression");
  cmd->add_option("--tolerance", report->tolerances,
                  "FIGURE=PERCENT: how much worse a figure may be (repeatable; beats spec.baseline.tolerances)");
  return cmd;
}

// The options of `ergobench results export`.
CLI::App* AddExportCommand(CLI::App* app, ExportOptions* options) {
  CLI::App* results_cmd = app->add_subcommand("results", "a cluster run's results, kept after its pods");
  results_cmd->require_subcommand(1);
  CLI::App* cmd = results_cmd->add_subcommand(
      "export", "write Benchmarks' results ConfigMaps as `ergobench run` result folders, for `ergobench report`");
  cmd->add_option("names", options->names, "Benchmark names")->required();
  cmd->add_option("--to", options->to, "write <dir>/<name>/")->capture_default_str();
  cmd->add_option("--kubeconfig", options->kubeconfig, "kubeconfig (default: $KUBECONFIG, ~/.kube/config)");
  cmd->add_option("-n,--namespace", options->namespace_name, "namespace (default: the kubeconfig's)");
  return cmd;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ergobench: benchmarks how well machines and clusters train real models", "ergobench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ergobench ") + ERGOBENCH_VERSION);

  ergobench::RunCommandOptions run;
  ClusterRun cluster_run;
  CLI::App* run_cmd = AddRunCommand(&app, &run, &cluster_run);
  std::vector<std::string> validate_files;
  CLI::App* validate_cmd = app.add_subcommand("validate", "check Benchmarks and print them resolved, as JSON");
  validate_cmd->add_option("files", validate_files, "Benchmark YAML files")->required();
  std::string validate_output = "json";
  AddOutputOption(validate_cmd, &validate_output, {"json", "yaml"}, "the resolved Benchmarks as json or yaml");
  ReportOptions report;
  CLI::App* report_cmd = AddReportCommand(&app, &report);
  ExportOptions export_options;
  CLI::App* export_cmd = AddExportCommand(&app, &export_options);
  // Everything after `cluster` goes to kube/cluster/cluster_command.py, --help included.
  CLI::App* cluster_cmd = app.add_subcommand("cluster", "a real Kubernetes cluster of N nodes on this machine, "
                                                        "links of known speed (up, status, load, link, down)");
  cluster_cmd->prefix_command();
  cluster_cmd->set_help_flag();
  CLI::App* tasks_cmd = app.add_subcommand("tasks", "list the task catalog and each task's hyperparameters");
  std::string tasks_output = "text";
  AddOutputOption(tasks_cmd, &tasks_output, {"text", "json", "yaml"}, "the catalog as text, json or yaml");
  CLI::App* mllog_cmd = app.add_subcommand("mllog", "MLPerf logs (rank-0.mllog of a run)");
  mllog_cmd->require_subcommand(1);
  CLI::App* mllog_check_cmd = mllog_cmd->add_subcommand("check", "apply MLPerf Training 4.0.0's log rules");
  std::vector<std::string> mllog_files;
  std::string mllog_output = "text";
  mllog_check_cmd->add_option("files", mllog_files, "mllog files")->required()->check(CLI::ExistingFile);
  AddOutputOption(mllog_check_cmd, &mllog_output, {"text", "json"}, "findings as text or json");
  CLI::App* mllog_score_cmd =
      mllog_cmd->add_subcommand("score", "score runs' logs as MLPerf's result summarizer does (one log per run)");
  mllog_score_cmd->add_option("files", mllog_files, "mllog files, one per run of one benchmark")
      ->required()
      ->check(CLI::ExistingFile);
  AddOutputOption(mllog_score_cmd, &mllog_output, {"text", "json"}, "each run and the score as text or json");
  CLI::App* version_cmd = app.add_subcommand("version", "print the version");
  std::string shell;
  CLI::App* completion_cmd = app.add_subcommand("completion", "print a shell completion script: source <(ergobench completion bash)");
  completion_cmd->add_option("shell", shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? ergobench::kExitOk : ergobench::kExitBadInput;
  }
  if (*run_cmd && cluster_run.enabled) {
    cluster_run.options.files = run.files;
    cluster_run.options.quiet = run.quiet;
    cluster_run.options.output = run.output;
    return ergobench::RunOnCluster(cluster_run.options);
  }
  if (*run_cmd) {
    if (run.local.runner_path.empty()) run.local.runner_path = ergobench::FindRunner();
    return ergobench::RunCommand(run);
  }
  if (*validate_cmd) return Validate(validate_files, validate_output);
  if (*report_cmd) {
    ClusterSource& cluster = report.cluster;
    cluster.enabled = cluster.enabled || !cluster.kubeconfigs.empty() || !cluster.contexts.empty();
    // Result directories only when named, or when no cluster was asked for.
    if (cluster.enabled && report_cmd->count("dirs") == 0) report.dirs.clear();
    return Report(report);
  }
  if (*export_cmd) return ExportResults(export_options);
  if (*cluster_cmd) return ergobench::ClusterCommand(cluster_cmd->remaining(), ergobench::kSourceDir);
  if (*tasks_cmd) return ListTasks(tasks_output);
  if (*mllog_check_cmd) return ergobench::MllogCheckCommand(mllog_files, mllog_output);
  if (*mllog_score_cmd) return ergobench::MllogScoreCommand(mllog_files, mllog_output);
  if (*completion_cmd) {
    std::cout << *ergobench::CompletionScript(app, shell, {{"cluster", {"up", "status", "load", "link", "down", "--help"}}});
    return ergobench::kExitOk;
  }
  if (*version_cmd) std::cout << "ergobench " << ERGOBENCH_VERSION << "\n";
  return ergobench::kExitOk;
}
