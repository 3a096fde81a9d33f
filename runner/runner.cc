#include "runner/runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include <ATen/Parallel.h>

#include "api/analysis/repeats.h"
#include "api/v1alpha1/load.h"
#include "base/free_port.h"
#include "base/metrics_server.h"
#include "base/units.h"
#include "energy/agent_meter.h"
#include "runner/artifact_shelf.h"
#include "runner/cpu_budget.h"
#if ERGOBENCH_HAS_GLOO
#include "runner/dist/gloo_communicator.h"
#endif
#if ERGOBENCH_HAS_CUDA
#include "runner/dist/nccl_connect.h"
#endif
#include "runner/dist/mpi_communicator.h"
#include "runner/dist/rendezvous_env.h"
#include "runner/environment.h"
#include "runner/metrics/energy_recorder.h"
#include "runner/metrics/mllog.h"
#include "runner/metrics/runner_metrics.h"
#include "runner/progress_writer.h"
#include "runner/stop_signal.h"
#include "runner/tasks/task.h"

namespace ergobench {
namespace {

using Clock = std::chrono::steady_clock;

void Log(int rank, const std::string& message) {
  std::cerr << "[rank " << rank << "] " << message << std::endl;
}

// The rank as the launcher assigned it, known before any rendezvous: the result file name
// needs it even when the rendezvous fails.
int LaunchRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", RendezvousEnv::kRank}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

void RedirectOutput(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::cerr << "cannot open log file " << path << ": " << std::strerror(errno) << std::endl;
    return;
  }
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  close(fd);
}

std::string HostName() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// Writes `text` to `path` in one write(2), so that a reader never sees half a result.
void WriteWhole(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    std::cerr << "cannot write " << path << ": " << std::strerror(errno) << std::endl;
  }
  if (fd >= 0) close(fd);
}

// Writes the result once, from whichever thread gets there first (the main thread, or the
// stop watchdog). It must exist whatever happens: on Kubernetes it is the only message that
// survives the pod. With a summary file the result file is the JSON alone (a local run's
// rank-<i>.json); without one it is the termination message, JSON and then the summary line.
class ResultOnce {
 public:
  ResultOnce(std::string path, std::string summary_path)
      : path_(std::move(path)), summary_path_(std::move(summary_path)) {}

  // False when a result was already written; this one is then dropped.
  bool Write(const RankResult& result) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (written_) return false;
    written_ = true;
    if (!summary_path_.empty()) WriteWhole(summary_path_, result.summary + "\n");
    if (!path_.empty()) WriteWhole(path_, summary_path_.empty() ? SerializeRankResult(result) : RankResultJson(result));
    return true;
  }

 private:
  std::mutex mutex_;
  bool written_ = false;
  std::string path_;
  std::string summary_path_;
};

// Where the gloo and nccl ranks meet, from the environment and the runner's flags.
StatusOr<RendezvousOptions> Rendezvous(int workers, const RunnerInvocation& options,
                                       std::optional<ReservedPort>* own_store_port) {
  ASSIGN_OR_RETURN(RendezvousOptions rendezvous, RendezvousFromEnv(ProcessEnv()));
  if (rendezvous.world_size != workers) {
    return Status::FailedPrecondition("WORLD_SIZE is " + std::to_string(rendezvous.world_size) +
                                      " but spec.workers is " + std::to_string(workers));
  }
  if (rendezvous.master_port == 0) {  // a world of one serves its own store
    ASSIGN_OR_RETURN(*own_store_port, ReservedPort::Reserve(rendezvous.master_addr.c_str()));
    rendezvous.master_port = (*own_store_port)->port();
  }
  if (!options.bind_address.empty()) rendezvous.bind_address = options.bind_address;
  if (rendezvous.bind_address.empty()) rendezvous.bind_address = HostName();
  rendezvous.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.rendezvous_timeout_seconds * 1000));
  rendezvous.collective_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(options.collective_timeout_seconds * 1000));
  return rendezvous;
}

StatusOr<std::unique_ptr<Communicator>> Connect(const Benchmark& benchmark, const RunnerInvocation& options) {
  const std::string& backend = benchmark.spec.backend;
  const int workers = static_cast<int>(benchmark.spec.workers);
  if (backend == "mpi") {
    if (!LaunchedByMpirun() && workers > 1) {
      return Status::FailedPrecondition("backend mpi with " + std::to_string(workers) +
                                        " workers needs the ranks started by mpirun");
    }
    return ConnectMpi(workers);
  }
  if (backend != "gloo" && backend != "nccl") return Status::InvalidArgument("spec.backend: unknown backend " + backend);
  std::optional<ReservedPort> own_store_port;
  ASSIGN_OR_RETURN(const RendezvousOptions rendezvous, Rendezvous(workers, options, &own_store_port));
  if (backend == "nccl") {
#if ERGOBENCH_HAS_CUDA
    return ConnectNcclRanks(rendezvous);
#else
    return Status::Unimplemented("backend nccl needs a runner built with CUDA (ERGOBENCH_CUDA); this one has none");
#endif
  }
#if ERGOBENCH_HAS_GLOO
  return ConnectGloo(rendezvous);
#else
  return Status::Unimplemented("backend gloo: this runner was built without gloo's headers (PyTorch's wheel has "
                               "none); use backend nccl or mpi");
#endif
}

// Ends the process once a stop was requested and the main thread has not finished within
// the grace period: a rank blocked in a rendezvous or a collective cannot poll for it.
// Before the rendezvous completes there is nothing to finish, so no grace is given.
class StopWatchdog {
 public:
  StopWatchdog(double grace_seconds, std::function<void()> on_expiry)
      : thread_([this, grace_seconds, on_expiry = std::move(on_expiry)] {
          while (!done_.load() && !StopRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          if (done_.load()) return;
          const double grace = connected_.load() ? grace_seconds : 0;
          const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace));
          while (!done_.load() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          if (!done_.load()) on_expiry();
        }) {}
  ~StopWatchdog() {
    done_.store(true);
    thread_.join();
  }
  void MarkConnected() { connected_.store(true); }
  // After the result is written, a late stop must not turn a success into an exit code.
  void Disarm() { done_.store(true); }

 private:
  std::atomic<bool> done_{false};
  std::atomic<bool> connected_{false};
  std::thread thread_;
};

}  // namespace

std::string ExpandRank(const std::string& pattern, int rank) {
  std::string out = pattern;
  const std::string token = "{rank}";
  for (size_t at = out.find(token); at != std::string::npos; at = out.find(token, at)) {
    out.replace(at, token.size(), std::to_string(rank));
  }
  return out;
}

namespace {

// What is known of this rank so far, and the one way a failure leaves: a result with status
// Failed (or Cancelled) and the error, written once, and an exit code.
class RankReport {
 public:
  RankReport(int launch_rank, ResultOnce& result_file) : result_file_(result_file) { result_.rank = launch_rank; }

  // Changes what a later failure reports; safe against the stop watchdog's thread.
  void Update(const std::function<void(RankResult&)>& change) {
    std::lock_guard<std::mutex> lock(mutex_);
    change(result_);
  }
  RankResult Snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    return result_;
  }

  int Fail(const Status& status, int exit_code) {
    RankResult failed = Snapshot();
    failed.status = status.code() == StatusCode::kCancelled ? kRankCancelled : kRankFailed;
    failed.error = status.message();
    failed.summary = "rank " + std::to_string(failed.rank) + " " + failed.status + ": " +
                     failed.error.substr(0, failed.error.find('\n'));
    if (result_file_.Write(failed)) std::cout << failed.summary << std::endl;
    return status.code() == StatusCode::kCancelled && StopSignal() != 0 ? 128 + StopSignal() : exit_code;
  }

 private:
  ResultOnce& result_file_;
  std::mutex mutex_;
  RankResult result_;
};

// The one Benchmark of `path`, as repeat `repeat` of it runs (its seed derived).
StatusOr<Benchmark> LoadOneBenchmark(const std::string& path, int repeat) {
  ASSIGN_OR_RETURN(std::vector<Benchmark> loaded, LoadBenchmarkFile(path));
  if (loaded.size() != 1) {
    return Status::InvalidArgument(path + ": holds " + std::to_string(loaded.size()) +
                                   " Benchmarks; the runner takes exactly one");
  }
  ApplyRepeatSeed(&loaded.front().spec, repeat);
  return std::move(loaded.front());
}

// Rank 0's output directory, offered after the run (--artifact-linger), behind the token of
// --artifact-token-file; nothing when it offers none. A bad token file is an error either way.
StatusOr<std::unique_ptr<ArtifactShelf>> OpenArtifactShelf(const RunnerInvocation& options) {
  ASSIGN_OR_RETURN(std::string token, ReadArtifactToken(options.artifact_token_file));
  if (options.artifact_linger_seconds <= 0 || options.output_dir.empty()) return std::unique_ptr<ArtifactShelf>();
  return std::make_unique<ArtifactShelf>(options.output_dir, std::move(token));
}

// /metrics and /healthz, unless metrics are off (port -1); `shelf`'s routes too, if given.
StatusOr<std::unique_ptr<MetricsServer>> StartMetrics(const RunnerInvocation& options, int launch_rank,
                                                      RunnerMetrics& metrics, ArtifactShelf* shelf) {
  if (options.metrics_port < 0) return std::unique_ptr<MetricsServer>();
  const int port = options.metrics_port_per_rank && options.metrics_port > 0 ? options.metrics_port + launch_rank
                                                                             : options.metrics_port;
  ExtraRoutes routes;
  if (shelf != nullptr) routes = [shelf](const RouteRequest& request) { return shelf->Answer(request); };
  ASSIGN_OR_RETURN(std::unique_ptr<MetricsServer> server,
                   MetricsServer::Start(options.metrics_bind, port, [&metrics] { return metrics.Render(); }, nullptr,
                                        {}, std::move(routes)));
  Log(launch_rank, "metrics on http://" + options.metrics_bind + ":" + std::to_string(server->port()) + "/metrics");
  return server;
}

// Offers the output directory until the operator has taken it (ArtifactShelf), unless the rank
// is being stopped: a pod's emptyDir goes with the pod.
int OfferArtifacts(ArtifactShelf& shelf, RunnerMetrics& metrics, const RunnerInvocation& options, int exit_code) {
  if (StopRequested()) return exit_code;
  shelf.Offer();
  metrics.SetArtifactsOffered();
  const auto linger = std::chrono::milliseconds(static_cast<int64_t>(options.artifact_linger_seconds * 1000));
  const std::string ended = shelf.WaitForRelease(linger, StopRequested);
  std::cout << "artifacts of " << options.output_dir << ": " << ended << std::endl;
  return exit_code;
}

// On a cluster node with an energy agent, its meter; elsewhere this host's own meters.
StatusOr<std::unique_ptr<EnergyRecorder>> OpenEnergyRecorder(const RunnerInvocation& options,
                                                             const ObjectMeta& benchmark, RunnerMetrics* metrics) {
  std::vector<std::unique_ptr<EnergyMeter>> meters;
  if (options.energy_agent.empty()) {
    meters = DiscoverEnergyMeters(options.sysfs_root, options.nvml_library);
  } else {
    ASSIGN_OR_RETURN(AgentAddress agent, ParseAgentAddress(options.energy_agent));
    meters.push_back(OpenAgentMeter(agent, benchmark.namespace_name, benchmark.name));
  }
  return std::make_unique<EnergyRecorder>(std::make_unique<EnergySampler>(std::move(meters)), metrics,
                                          options.ranks_on_node > 0 ? options.ranks_on_node : options.ranks_per_host);
}

// Torch's threads from the CPU quota (oversubscribing halves throughput), and the environment
// the result describes.
nlohmann::json SetThreads(const RunnerInvocation& options, const BenchmarkSpec& spec, int* threads) {
  const CpuBudget budget = ReadCpuBudget();
  at::set_num_threads(options.threads > 0 ? options.threads : ThreadsPerRank(budget, options.ranks_per_host));
  *threads = at::get_num_threads();  // what torch's intra-op pool will use, read back, not assumed
  const nlohmann::json& seed = spec.hyperparameters.value("seed", nlohmann::json(0));
  return DescribeEnvironment({budget, *threads, spec.backend, seed.is_number_integer() ? seed.get<int64_t>() : 0});
}

// On Kubernetes the output directory is a fresh emptyDir subpath: make it, as `ergobench run`
// does for its results directory.
Status CreateOutputDir(const std::string& dir) {
  if (dir.empty()) return Status::Ok();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Status::FailedPrecondition("cannot create --output-dir " + dir + ": " + error.message());
  return Status::Ok();
}

// The rank as connected, in what a failure reports from now on: its rank, its time to connect,
// and the collective library that moves its bytes.
void RecordConnection(const Communicator& comm, double init_seconds, int threads, nlohmann::json environment,
                      RankReport& report) {
  if (const std::string library = comm.LibraryVersion(); !library.empty()) environment["collectiveLibrary"] = library;
  report.Update([&](RankResult& r) {
    r.rank = comm.rank();
    r.figures.init_seconds = init_seconds;
    r.environment = environment;
  });
  Log(comm.rank(), "joined " + std::to_string(comm.world_size()) + " ranks over " + comm.backend() + " in " +
                       FormatSeconds(init_seconds) + "; " + std::to_string(threads) + " threads");
}

// MLPerf's submission keys (spec.submission, with defaults for what it leaves out);
// cache_clear, false: ergobench does not drop the page cache, which needs privileges a pod lacks;
// and the system's scale that MLPerf HPC's closed division requires: the nodes the ranks take
// (the ranks a node holds, on a cluster its scheduling's, here all of them) and the GPUs a node
// trains on (0 on CPUs).
void LogSubmission(const BenchmarkSpec& spec, const RunnerInvocation& options, MlLog& mllog) {
  const Submission given = spec.submission.value_or(Submission{});
  const auto or_default = [](const std::string& value, const std::string& fallback) {
    return value.empty() ? fallback : value;
  };
  mllog.Point("submission_org", or_default(given.org, "unspecified"));
  mllog.Point("submission_platform", or_default(given.platform, std::to_string(spec.workers) + "x" + CpuModel()));
  mllog.Point("submission_division", or_default(given.division, "open"));
  mllog.Point("submission_status", or_default(given.status, "research"));
  mllog.Point("cache_clear", false);
  const int64_t per_node = std::max(1, options.ranks_on_node > 0 ? options.ranks_on_node : options.ranks_per_host);
  mllog.Point("number_of_nodes", (spec.workers + per_node - 1) / per_node);
  mllog.Point("accelerators_per_node", spec.device == "cuda" ? per_node : 0);
}

}  // namespace

int RunRunner(const RunnerInvocation& options) {
  const auto process_start = Clock::now();
  InstallStopHandlers();
  const int launch_rank = LaunchRank();
  if (!options.log_file.empty()) RedirectOutput(ExpandRank(options.log_file, launch_rank));
  ResultOnce result_file(ExpandRank(options.result_file, launch_rank), ExpandRank(options.summary_file, launch_rank));
  MlLog mllog(ExpandRank(options.mllog_file, launch_rank));
  mllog.Start("init_start");
  RankReport report(launch_rank, result_file);

  StatusOr<Benchmark> loaded = LoadOneBenchmark(options.config_path, options.repeat);
  if (!loaded.ok()) return report.Fail(loaded.status(), kExitBadConfig);
  const Benchmark& benchmark = *loaded;
  const BenchmarkSpec& spec = benchmark.spec;
  report.Update([&](RankResult& r) { std::tie(r.benchmark, r.task, r.backend, r.world_size) =
                                         std::tie(benchmark.metadata.name, spec.task, spec.backend, spec.workers); });
  StatusOr<std::unique_ptr<Task>> task = CreateTask(spec.task);
  if (!task.ok()) return report.Fail(task.status(), kExitBadConfig);
  LogSubmission(spec, options, mllog);

  int threads = 1;
  nlohmann::json environment = SetThreads(options, spec, &threads);
  RunnerMetrics metrics({benchmark.metadata.name, spec.task, spec.backend, launch_rank, static_cast<int>(spec.workers)});
  StatusOr<std::unique_ptr<EnergyRecorder>> recorder = OpenEnergyRecorder(options, benchmark.metadata, &metrics);
  if (!recorder.ok()) return report.Fail(recorder.status(), kExitBadConfig);
  EnergyRecorder& energy = **recorder;
  environment["energyMeters"] = energy.Describe();
  report.Update([&](RankResult& r) { r.environment = environment; });
  energy.Start(std::chrono::milliseconds(options.energy_interval_ms));
  mllog.SetObserver([&energy](const std::string& type, const std::string& key) { energy.OnEvent(type, key); });
  StatusOr<std::unique_ptr<ArtifactShelf>> shelf = OpenArtifactShelf(options);
  if (!shelf.ok()) return report.Fail(shelf.status(), kExitBadConfig);
  StatusOr<std::unique_ptr<MetricsServer>> server = StartMetrics(options, launch_rank, metrics, shelf->get());
  if (!server.ok()) return report.Fail(server.status(), kExitBadConfig);
  const auto linger = [&](int exit_code) {
    return *shelf && *server ? OfferArtifacts(**shelf, metrics, options, exit_code) : exit_code;
  };

  StopWatchdog watchdog(options.stop_grace_seconds, [&] {
    report.Fail(Status::Cancelled("stopped by signal " + std::to_string(StopSignal()) + " while waiting for other ranks"), 0);
    std::_Exit(128 + StopSignal());
  });
  if (Status made = CreateOutputDir(options.output_dir); !made.ok()) return report.Fail(made, kExitFailed);

  ProgressWriter progress(ExpandRank(options.progress_file, launch_rank), launch_rank, benchmark.spec.max_epochs, &metrics);
  progress.ReportStage("init");
  StatusOr<std::unique_ptr<Communicator>> communicator = Connect(benchmark, options);
  if (!communicator.ok()) return report.Fail(communicator.status(), kExitFailed);
  watchdog.MarkConnected();
  const double init_seconds = std::chrono::duration<double>(Clock::now() - process_start).count();
  RecordConnection(**communicator, init_seconds, threads, std::move(environment), report);

  TaskContext context{benchmark, **communicator, metrics, progress, options.output_dir, mllog};
  StatusOr<TaskOutcome> outcome = RunTask(**task, context);
  if (!outcome.ok()) {
    const int exit_code = report.Fail(outcome.status(), kExitFailed);
    // Ranks that agreed to stop all leave together; a lone failure must take the others down.
    if (outcome.status().code() != StatusCode::kCancelled) (*communicator)->AbortJob(exit_code);
    return linger(exit_code);
  }

  RankResult succeeded = report.Snapshot();
  succeeded.figures = outcome->figures;
  energy.Finish(&succeeded.figures);
  succeeded.figures.init_seconds = init_seconds + outcome->figures.init_seconds;
  succeeded.status = kRankSucceeded;
  succeeded.summary = "rank " + std::to_string(succeeded.rank) + " succeeded: " + outcome->summary;
  if (!result_file.Write(succeeded)) return 128 + StopSignal();  // the watchdog reported a stop first
  watchdog.Disarm();
  progress.ReportStage("done");
  std::cout << succeeded.summary << std::endl;
  return linger(kExitOk);
}

}  // namespace ergobench
