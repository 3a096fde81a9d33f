#include "cli/run_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "api/analysis/regression.h"
#include "api/analysis/sweep_status.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/benchmark_phase.h"
#include "api/v1alpha1/load.h"
#include "api/v1alpha1/object_codec.h"
#include "cli/output_format.h"
#include "cli/run_display.h"

namespace ergobench {
namespace {

std::atomic<int> g_interrupted{0};
extern "C" void OnInterrupt(int signal_number) { g_interrupted.store(signal_number); }

// A progress line that rewrites itself on a terminal and prints now and then in a log.
class ProgressDisplay {
 public:
  // `place`: a sweep point's "point 3/12", else empty.
  ProgressDisplay(const Benchmark& benchmark, std::string place)
      : benchmark_(benchmark), tty_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {
    times_.place = std::move(place);
  }

  void Update(const ProgressEvent& event) {
    if (!event.stage.empty()) latest_ = event;
    times_.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double elapsed = times_.elapsed_seconds;
    const std::string line = FormatProgressLine(benchmark_, latest_, times_);
    if (tty_) {
      std::cerr << "\r\033[K" << line << std::flush;
      shown_ = true;
    } else if (elapsed - last_printed_ >= 5 || (latest_.done == latest_.total && latest_.total > 0 && !final_printed_)) {
      std::cerr << line << "\n";
      last_printed_ = elapsed;
      final_printed_ = latest_.done == latest_.total && latest_.total > 0;
    }
  }

  void Finish() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  const Benchmark& benchmark_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  ProgressTimes times_;
  ProgressEvent latest_;
  bool shown_ = false;
  double last_printed_ = -10;
  bool final_printed_ = false;
};

void PrintTaskTable(const LocalRunReport& report) {
  if (report.benchmark.spec.task != "0a") return;
  StatusOr<std::string> text = ReadFile(report.results_dir + "/allreduce.json");
  if (!text.ok()) return;
  nlohmann::json table = nlohmann::json::parse(*text, nullptr, false);
  if (!table.is_discarded()) std::cout << FormatAllreduceTable(table);
}

// What only a cluster can give a rank: a Dataset the file does not hold, or a volume.
std::string ClusterOnlyDataset(const Benchmark& benchmark) {
  const DatasetSpec& d = benchmark.spec.dataset;
  const std::string name = "Benchmark \"" + benchmark.metadata.name + "\": ";
  if (!d.ref.empty()) {
    return name + "spec.dataset.ref: Dataset \"" + d.ref + "\" is not in this file with a url source; " +
           "`ergobench run` fetches a url (put the Dataset beside the Benchmark) or reads spec.dataset.path";
  }
  if (!d.volume.empty()) return name + "spec.dataset.volume: a volume is mounted on a cluster only; use spec.dataset.path";
  return "";
}

// The sweep a Benchmark is a point of, by its label; nullptr for a plain Benchmark.
const LoadedSweep* SweepOf(const Benchmark& benchmark, const std::vector<LoadedSweep>& sweeps) {
  const auto label = benchmark.metadata.labels.find(kSweepLabel);
  if (label == benchmark.metadata.labels.end()) return nullptr;
  for (const LoadedSweep& s : sweeps) {
    if (s.sweep.metadata.name == label->second) return &s;
  }
  return nullptr;
}

// "point 3/12": where a sweep's point comes in its run order.
std::string PointPlace(const Benchmark& benchmark, const LoadedSweep& sweep) {
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    if (sweep.points[i].benchmark.metadata.name == benchmark.metadata.name) {
      return "point " + std::to_string(i + 1) + "/" + std::to_string(sweep.points.size());
    }
  }
  return "";
}

// Each sweep's status from its points' runs: printed (a table, or the sweep as `output` says),
// and written to <results>/<sweep>/sweep.json.
void ReportSweeps(const std::vector<LoadedSweep>& sweeps, const std::map<std::string, Benchmark>& finished,
                  const std::string& results_root, const std::string& output) {
  for (const LoadedSweep& loaded : sweeps) {
    BenchmarkSweep sweep = loaded.sweep;
    TallyPoints(AggregatePoints(loaded.points, finished), sweep.spec, &sweep.status);
    sweep.status.phase = sweep.status.failed > 0 ? kPhaseFailed
                         : sweep.status.succeeded == sweep.status.total ? kPhaseSucceeded : kPhasePending;
    nlohmann::json json = {{"apiVersion", kApiVersion}, {"kind", kSweepKind}, {"metadata", ObjectMetaFields().Encode(sweep.metadata)},
                           {"spec", EncodeSweepSpec(sweep.spec)}, {"status", EncodeSweepStatus(sweep.status)}};
    std::cout << (output == "text" ? FormatSweepTable(sweep) : *FormatDocuments({json}, output));
    const std::string dir = results_root + "/" + sweep.metadata.name;
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    std::ofstream out(dir + "/sweep.json");
    out << json.dump(2) << "\n";
    if (!out) std::cerr << "ergobench: " << dir << "/sweep.json: cannot write\n";
  }
}

StatusOr<LoadedDocuments> LoadFiles(const std::vector<std::string>& files) {
  LoadedDocuments all;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(LoadedDocuments loaded, LoadDocumentFile(file));
    all.benchmarks.insert(all.benchmarks.end(), loaded.benchmarks.begin(), loaded.benchmarks.end());
    all.sweeps.insert(all.sweeps.end(), loaded.sweeps.begin(), loaded.sweeps.end());
  }
  for (const Benchmark& benchmark : all.benchmarks) {
    if (const std::string error = ClusterOnlyDataset(benchmark); !error.empty()) return Status::InvalidArgument(error);
  }
  return all;
}

}  // namespace

std::string FindRunner() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const std::filesystem::path sibling = self.parent_path() / "ergobench-runner";
    if (std::filesystem::exists(sibling)) return sibling.string();
  }
  if (const char* env = std::getenv("ERGOBENCH_RUNNER")) return env;
  return "ergobench-runner";
}

int RunCommand(const RunCommandOptions& options) {
  StatusOr<LoadedDocuments> loaded = LoadFiles(options.files);
  if (!loaded.ok()) {
    std::cerr << "ergobench: " << loaded.status().message() << "\n";
    return kExitBadInput;
  }
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  bool refused = false, failed = false, regressed = false;
  std::map<std::string, Benchmark> finished;  // for the sweeps' status
  std::set<std::string> stopped_sweeps;        // failurePolicy Stop, after a failed point
  for (const Benchmark& benchmark : loaded->benchmarks) {
    if (g_interrupted.load()) break;
    const LoadedSweep* sweep = SweepOf(benchmark, loaded->sweeps);
    if (sweep != nullptr && stopped_sweeps.count(sweep->sweep.metadata.name)) {
      std::cerr << benchmark.metadata.name << ": not run: an earlier point of its sweep failed (failurePolicy Stop)\n";
      continue;
    }
    ProgressDisplay display(benchmark, sweep == nullptr ? "" : PointPlace(benchmark, *sweep));
    LocalRunOptions local = options.local;
    local.stop_requested = [] { return g_interrupted.load() != 0; };
    if (!options.quiet) local.on_progress = [&display](const ProgressEvent& e) { display.Update(e); };
    local.on_repeat = [&](int64_t repeat, int64_t repeats) {
      display.Finish();
      std::cerr << benchmark.metadata.name << ": repeat " << repeat + 1 << " of " << repeats << "\n";
    };
    StatusOr<LocalRunReport> report = RunLocally(benchmark, local);
    display.Finish();
    if (!report.ok()) {
      std::cerr << "ergobench: " << benchmark.metadata.name << ": " << report.status().message() << "\n";
      // A catalog or baseline the run cannot use is refused before any rank starts.
      (report.status().code() == StatusCode::kInvalidArgument ? refused : failed) = true;
      continue;
    }
    if (options.output == "text") {
      if (report->outcome.phase == "Succeeded") PrintTaskTable(*report);
      std::cout << FormatRunReport(*report) << std::flush;
    } else {
      std::cout << *FormatDocuments({EncodeBenchmark(report->benchmark)}, options.output) << std::flush;
    }
    if (report->cancelled) return kExitInterrupted;
    finished[benchmark.metadata.name] = report->benchmark;
    const bool point_failed = report->outcome.phase != "Succeeded";
    if (point_failed && sweep != nullptr && sweep->sweep.spec.failure_policy == kFailureStop) {
      stopped_sweeps.insert(sweep->sweep.metadata.name);
    }
    failed = failed || point_failed;
    regressed = regressed || AnyRegressed(report->outcome.results.verdicts);
  }
  if (g_interrupted.load()) return kExitInterrupted;
  ReportSweeps(loaded->sweeps, finished, options.local.results_root, options.output);
  return refused ? kExitBadInput : failed ? kExitFailed : regressed ? kExitRegressed : kExitOk;
}

}  // namespace ergobench
