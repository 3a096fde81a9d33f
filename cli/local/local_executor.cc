#include "cli/local/local_executor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "api/analysis/regression.h"
#include "api/analysis/repeats.h"
#include "api/pricing/cost.h"
#include "api/v1alpha1/benchmark_codec.h"
#include "api/v1alpha1/catalog.h"
#include "api/v1alpha1/load.h"
#include "base/free_port.h"
#include "base/rfc3339.h"
#include "cli/local/local_host.h"
#include "cli/local/local_launch.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Clock::time_point After(Clock::time_point from, double seconds) {
  return from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// A previous run under the same name must not leave results that this run would read.
Status PrepareResultsDir(const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return Status::Unavailable(dir + ": cannot create: " + error.message());
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("rank-", 0) == 0 || name.rfind("allreduce.", 0) == 0 || name == "mpirun.log" ||
        name == "benchmark.json" || name.rfind("repeat-", 0) == 0) {
      fs::remove_all(entry.path(), error);
    }
  }
  return Status::Ok();
}

Status WriteJson(const std::string& path, const nlohmann::json& json) {
  std::ofstream out(path);
  out << json.dump(2) << "\n";
  if (!out) return Status::Unavailable(path + ": cannot write");
  return Status::Ok();
}

// Follows a file that another process appends whole lines to.
class LineFollower {
 public:
  explicit LineFollower(std::string path) : path_(std::move(path)) {}

  std::vector<std::string> NewLines() {
    std::vector<std::string> lines;
    std::ifstream in(path_);
    if (!in) return lines;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::string line;
    while (std::getline(in, line)) {
      if (in.eof()) break;  // a line still being written
      offset_ += line.size() + 1;
      lines.push_back(line);
    }
    return lines;
  }

 private:
  std::string path_;
  size_t offset_ = 0;
};

std::string LastLines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("WARNING: Logging before InitGoogleLogging", 0) == 0) continue;  // glog noise
    lines.push_back(line);
    if (lines.size() > count) lines.erase(lines.begin());
  }
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

struct RankReading {
  RankResult result;
  fs::file_time_type written;
};

// Each rank's result; a rank without a readable one gets a Failed result that quotes the
// end of its log. Ordered so that the cause of a failure comes first: ranks that died on
// their own (`crashed`: gone without a result before anyone was told to stop; a rank that
// loses a peer writes a result instead), then by when the result was written.
// `exit_codes` holds each rank's own exit code where known (gloo: one process per rank),
// else the launcher's (mpirun).
std::vector<RankResult> CollectResults(const Benchmark& benchmark, const std::string& dir,
                                       const std::vector<int>& exit_codes, const std::set<int>& crashed) {
  std::vector<RankReading> readings;
  const int workers = static_cast<int>(benchmark.spec.workers);
  for (int rank = 0; rank < workers; ++rank) {
    const std::string path = RankResultPath(dir, rank);
    std::error_code error;
    fs::file_time_type written = fs::last_write_time(path, error);
    StatusOr<std::string> text = ReadFile(path);
    StatusOr<RankResult> parsed = text.ok() ? ParseRankResult(*text) : StatusOr<RankResult>(text.status());
    if (parsed.ok()) {
      if (StatusOr<std::string> summary = ReadFile(RankSummaryPath(dir, rank)); summary.ok()) {
        parsed->summary = summary->substr(0, summary->find('\n'));
      }
      readings.push_back({std::move(parsed).value(), written});
      continue;
    }
    RankResult missing;
    missing.benchmark = benchmark.metadata.name;
    missing.rank = rank;
    missing.world_size = workers;
    missing.status = kRankFailed;
    const int code = exit_codes.size() == 1 ? exit_codes.front() : exit_codes[static_cast<size_t>(rank)];
    missing.error = "exited (code " + std::to_string(code) + ") without a result";
    const std::string log_tail = LastLines(RankLogPath(dir, rank), 5);
    if (!log_tail.empty()) missing.error += "; last log lines:\n" + log_tail;
    readings.push_back({missing, crashed.contains(rank) ? fs::file_time_type::min() : fs::file_time_type::max()});
  }
  std::stable_sort(readings.begin(), readings.end(),
                   [](const RankReading& a, const RankReading& b) { return a.written < b.written; });
  std::vector<RankResult> results;
  for (RankReading& r : readings) results.push_back(std::move(r.result));
  return results;
}

BenchmarkStatus FinalStatus(const RunOutcome& outcome, const std::vector<RankResult>& ranks,
                            std::chrono::system_clock::time_point started) {
  BenchmarkStatus status;
  status.phase = outcome.phase;
  status.start_time = Rfc3339(started);
  status.completion_time = Rfc3339(std::chrono::system_clock::now());
  for (const RankResult& r : ranks) {
    (r.status == kRankSucceeded ? status.workers.succeeded : status.workers.failed) += 1;
  }
  status.conditions.push_back({outcome.phase, "True", outcome.reason, outcome.message, status.completion_time, 0});
  if (std::optional<Condition> regressed = RegressionCondition(outcome.results)) {
    regressed->last_transition_time = status.completion_time;
    status.conditions.push_back(*regressed);
  }
  status.results = outcome.results;
  return status;
}

LaunchPlan PlanLaunch(const LocalRunOptions& options, const std::string& dir, const std::string& config_path,
                      int master_port) {
  LaunchPlan plan;
  plan.runner_path = options.runner_path;
  plan.mpirun_path = options.mpirun_path;
  plan.results_dir = dir;
  plan.config_path = config_path;
  plan.metrics_port = options.metrics_port;
  plan.rendezvous_timeout_seconds = options.rendezvous_timeout_seconds;
  plan.stop_grace_seconds = options.stop_grace_seconds;
  plan.as_root = geteuid() == 0;
  plan.master_port = master_port;
  return plan;
}

// Starts every child of the launch, or none: when one cannot start, those started are killed.
StatusOr<std::vector<ChildProcess>> StartAll(const std::vector<ChildSpec>& specs) {
  std::vector<ChildProcess> children;
  for (const ChildSpec& spec : specs) {
    StatusOr<ChildProcess> child = ChildProcess::Start(spec);
    if (!child.ok()) {
      for (ChildProcess& started : children) {
        started.SignalGroup(SIGKILL);
        started.Wait();
      }
      return child.status();
    }
    children.push_back(std::move(child).value());
  }
  return children;
}

// Hands rank 0's new progress events to the caller, and an empty one after a second without
// any, so that it can refresh its clock.
class ProgressForwarder {
 public:
  ProgressForwarder(const std::string& path, const LocalRunOptions& options) : follower_(path), options_(options) {}

  void Forward(Clock::time_point now) {
    if (!options_.on_progress) return;
    bool reported = false;
    for (const std::string& line : follower_.NewLines()) {
      if (StatusOr<ProgressEvent> event = ParseProgressEvent(line); event.ok()) {
        options_.on_progress(*event);
        reported = true;
      }
    }
    if (reported || now - last_ > std::chrono::seconds(1)) {
      if (!reported) options_.on_progress(ProgressEvent{});
      last_ = now;
    }
  }

 private:
  LineFollower follower_;
  const LocalRunOptions& options_;
  Clock::time_point last_ = Clock::now();
};

// Polls the children until every one has exited. A stop request, or a failed rank once the
// failure grace has passed, sends SIGTERM to all; SIGKILL follows after the stop grace.
// Returns the gloo ranks that exited before anyone told them to stop (child i is rank i; mpirun
// is one child for all ranks, so mpi has none).
std::set<int> Supervise(std::vector<ChildProcess>& children, const Benchmark& benchmark,
                        const LocalRunOptions& options, ProgressForwarder& progress, bool* cancelled) {
  std::optional<Clock::time_point> stop_deadline;     // after SIGTERM, SIGKILL at this time
  std::optional<Clock::time_point> failure_deadline;  // after a rank failed, SIGTERM at this time
  std::set<int> exited_unasked;
  auto stop_all = [&](int signal_number) {
    for (const ChildProcess& c : children) {
      if (c.running()) c.SignalGroup(signal_number);  // a reaped PID may belong to someone else by now
    }
  };
  while (true) {
    bool any_running = false;
    for (size_t i = 0; i < children.size(); ++i) {
      ChildProcess& child = children[i];
      const bool was_running = child.running();
      std::optional<int> code = child.Poll();
      if (was_running && code && !stop_deadline && benchmark.spec.backend == "gloo") {
        exited_unasked.insert(static_cast<int>(i));
      }
      if (code && *code != 0 && !failure_deadline) failure_deadline = After(Clock::now(), options.failure_grace_seconds);
      any_running = any_running || child.running();
    }
    if (!any_running) return exited_unasked;

    const auto now = Clock::now();
    const bool stop_asked = options.stop_requested && options.stop_requested();
    if (!stop_deadline && (stop_asked || (failure_deadline && now >= *failure_deadline))) {
      *cancelled = stop_asked;
      stop_all(SIGTERM);
      stop_deadline = After(now, options.stop_grace_seconds + 2);
    }
    if (stop_deadline && now >= *stop_deadline) stop_all(SIGKILL);
    progress.Forward(now);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// The catalog, and whether it prices spec.pricing.label: a label the run cannot price is the
// author's mistake, said before the run rather than after it.
StatusOr<PriceCatalog> ReadCatalog(const BenchmarkSpec& spec, const LocalRunOptions& options) {
  PriceCatalogSource source(options.price_catalog_dir);
  PriceCatalog catalog = source.Current();
  if (!source.error().empty()) return Status::InvalidArgument("price catalog: " + source.error());
  const Pricing* p = spec.pricing ? &*spec.pricing : nullptr;
  if (p != nullptr && !p->label.empty() && !p->worker_hour && !p->accelerator_hour &&
      FindPrice(catalog, kPriceInstance, "", p->label, p->region) == nullptr) {
    return Status::InvalidArgument("spec.pricing.label: no price for \"" + p->label + "\"" +
                                   (p->region.empty() ? "" : " in " + p->region) + " in the price catalog (" +
                                   (options.price_catalog_dir.empty() ? "built in" : options.price_catalog_dir) + ")");
  }
  return catalog;
}

// A local run used its host, alone.
void PriceLocalRun(const BenchmarkSpec& spec, const PriceCatalog& catalog, const LocalRunOptions& options,
                   BenchmarkResults* results) {
  const NodeFacts host = LocalHostFacts();
  results->system = DescribeSystem({host}, results->environment);
  const PricingContext context{&catalog, std::chrono::system_clock::now(), options.price_max_age_days};
  PriceResults(spec, {NodeUse{host, spec.workers, true}}, context, results);
}

// One gang of ranks, the rank results folded but not priced.
struct GangRun {
  RunOutcome outcome;
  std::vector<RankResult> ranks;
  bool cancelled = false;
};

StatusOr<GangRun> RunGang(const Benchmark& benchmark, const LocalRunOptions& options, const std::string& dir,
                          const std::string& config_path, int repeat) {
  // Held until the ranks have gone: see ReservedPort. (mpirun makes its own rendezvous.)
  std::optional<ReservedPort> master_port;
  if (benchmark.spec.backend == "gloo") {
    ASSIGN_OR_RETURN(master_port, ReservedPort::Reserve());
  }
  LaunchPlan plan = PlanLaunch(options, dir, config_path, master_port ? master_port->port() : 0);
  plan.repeat = repeat;
  ASSIGN_OR_RETURN(std::vector<ChildProcess> children, StartAll(BuildLocalLaunch(benchmark, plan)));
  ProgressForwarder progress(RankProgressPath(dir, 0), options);
  GangRun gang;
  const std::set<int> exited_unasked = Supervise(children, benchmark, options, progress, &gang.cancelled);
  // mpirun has gone, but a rank it started may linger in its process group, which outlives
  // its leader while it has members. (A gloo rank starts nothing.)
  if (benchmark.spec.backend == "mpi") children.front().SignalGroup(SIGKILL);

  std::vector<int> exit_codes;
  for (const ChildProcess& c : children) exit_codes.push_back(c.exit_code().value_or(-1));
  gang.ranks = CollectResults(benchmark, dir, exit_codes, exited_unasked);
  gang.outcome = AggregateRankResults(gang.ranks, benchmark.spec.workers, ReferenceEpochSamples(benchmark.spec.task));
  return gang;
}

// The task's tables (allreduce.json, ...) where `ergobench report` looks for them.
void CopyTables(const std::string& from, const std::string& to) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(from, error)) {
    if (entry.path().filename().string().rfind("allreduce.", 0) == 0) {
      fs::copy_file(entry.path(), fs::path(to) / entry.path().filename(), fs::copy_options::overwrite_existing, error);
    }
  }
}

// The results a run is compared with: a results directory of `ergobench run`, or its
// benchmark.json.
StatusOr<BenchmarkResults> ReadBaseline(const Baseline& baseline) {
  const std::string where = "spec.baseline.path";
  if (baseline.path.empty()) {
    return Status::InvalidArgument(where + ": `ergobench run` compares with a results directory; " +
                                   "benchmark and configMap name objects on a cluster");
  }
  fs::path file = baseline.path;
  if (fs::is_directory(file)) file /= "benchmark.json";
  StatusOr<std::string> text = ReadFile(file.string());
  if (!text.ok()) return Status::InvalidArgument(where + ": " + text.status().message());
  StatusOr<BenchmarkResults> results =
      BaselineResults(nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false), file.string());
  // Whatever is wrong with it, the run is refused before it starts.
  if (!results.ok()) return Status::InvalidArgument(where + ": " + results.status().message());
  return results;
}

}  // namespace

StatusOr<LocalRunReport> RunLocally(const Benchmark& benchmark, const LocalRunOptions& options) {
  LocalRunReport report;
  ASSIGN_OR_RETURN(const PriceCatalog catalog, ReadCatalog(benchmark.spec, options));
  std::optional<BenchmarkResults> baseline;
  if (benchmark.spec.baseline) {
    ASSIGN_OR_RETURN(baseline, ReadBaseline(*benchmark.spec.baseline));
  }
  report.benchmark = benchmark;
  report.results_dir = options.results_root + "/" + benchmark.metadata.name;
  const std::string& dir = report.results_dir;
  RETURN_IF_ERROR(PrepareResultsDir(dir));
  const std::string config_path = dir + "/benchmark.json";
  RETURN_IF_ERROR(WriteJson(config_path, EncodeBenchmark(benchmark)));

  const auto started = std::chrono::system_clock::now();
  const int64_t repeats = benchmark.spec.repeats;
  std::vector<RepeatResult> done;
  GangRun gang;
  for (int64_t repeat = 0; repeat < repeats; ++repeat) {
    if (options.on_repeat && repeats > 1) options.on_repeat(repeat, repeats);
    // Each repeat's rank files in a folder of its own; the last one's tables are copied up.
    const std::string gang_dir = repeats > 1 ? dir + "/repeat-" + std::to_string(repeat) : dir;
    if (gang_dir != dir) RETURN_IF_ERROR(PrepareResultsDir(gang_dir));
    ASSIGN_OR_RETURN(gang, RunGang(benchmark, options, gang_dir, config_path, static_cast<int>(repeat)));
    if (gang.cancelled || gang.outcome.phase != kPhaseSucceeded) break;
    done.push_back(RepeatOf(repeat, benchmark.spec, gang.outcome.results));
    if (repeats > 1 && repeat == repeats - 1) CopyTables(gang_dir, dir);
  }
  report.cancelled = gang.cancelled;
  report.outcome = gang.outcome;
  BenchmarkResults& results = report.outcome.results;
  const bool all_done = static_cast<int64_t>(done.size()) == repeats;
  if (all_done) results = FoldRepeats(benchmark.spec, results, done);
  PriceLocalRun(benchmark.spec, catalog, options, &results);
  if (baseline && all_done) {
    JudgeAgainstBaseline(*baseline, DescribeBaseline(*benchmark.spec.baseline), benchmark.spec.baseline->tolerances,
                         &results);
  }
  report.benchmark.status = FinalStatus(report.outcome, gang.ranks, started);
  if (!all_done) report.benchmark.status.repeats = done;
  RETURN_IF_ERROR(WriteJson(config_path, EncodeBenchmark(report.benchmark)));
  return report;
}

}  // namespace ergobench
