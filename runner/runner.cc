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

#include <ATen/Parallel.h>

#include "api/free_port.h"
#include "api/load.h"
#include "api/units.h"
#include "runner/cpu_budget.h"
#include "runner/dist/gloo_communicator.h"
#include "runner/dist/mpi_communicator.h"
#include "runner/dist/rendezvous_env.h"
#include "runner/environment.h"
#include "api/metrics_server.h"
#include "runner/energy/energy_recorder.h"
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
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "RANK"}) {
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

// Writes the result file once, in one go, from whichever thread gets there first (the
// main thread, or the stop watchdog). It must exist whatever happens: on Kubernetes it is
// the only message that survives the pod.
class ResultOnce {
 public:
  explicit ResultOnce(std::string path) : path_(std::move(path)) {}

  // False when a result was already written; this one is then dropped.
  bool Write(const RankResult& result) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (written_) return false;
    written_ = true;
    if (path_.empty()) return true;
    const std::string text = SerializeRankResult(result);
    const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      std::cerr << "cannot write result file " << path_ << ": " << std::strerror(errno) << std::endl;
    }
    if (fd >= 0) close(fd);
    return true;
  }

 private:
  std::mutex mutex_;
  bool written_ = false;
  std::string path_;
};

StatusOr<std::unique_ptr<Communicator>> Connect(const Benchmark& benchmark, const RunnerOptions& options) {
  const std::string& backend = benchmark.spec.backend;
  const int workers = static_cast<int>(*benchmark.spec.workers);
  if (backend == "mpi") {
    if (!LaunchedByMpirun() && workers > 1) {
      return Status::FailedPrecondition("backend mpi with " + std::to_string(workers) +
                                        " workers needs the ranks started by mpirun");
    }
    return ConnectMpi(workers);
  }
  if (backend != "gloo") {
    return Status::Unimplemented("backend " + backend + " needs a CUDA build of ergobench-runner; this one is CPU-only");
  }
  ASSIGN_OR_RETURN(RendezvousOptions rendezvous, RendezvousFromEnv(ProcessEnv()));
  if (rendezvous.world_size != workers) {
    return Status::FailedPrecondition("WORLD_SIZE is " + std::to_string(rendezvous.world_size) +
                                      " but spec.workers is " + std::to_string(workers));
  }
  if (rendezvous.master_port == 0) {
    ASSIGN_OR_RETURN(rendezvous.master_port, FreePort(rendezvous.master_addr.c_str()));
  }
  if (!options.bind_address.empty()) rendezvous.bind_address = options.bind_address;
  if (rendezvous.bind_address.empty()) rendezvous.bind_address = HostName();
  rendezvous.timeout = std::chrono::milliseconds(static_cast<int64_t>(options.rendezvous_timeout_seconds * 1000));
  rendezvous.collective_timeout =
      std::chrono::milliseconds(static_cast<int64_t>(options.collective_timeout_seconds * 1000));
  return ConnectGloo(rendezvous);
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

int RunRunner(const RunnerOptions& options) {
  const auto process_start = Clock::now();
  InstallStopHandlers();
  const int launch_rank = LaunchRank();
  if (!options.log_file.empty()) RedirectOutput(ExpandRank(options.log_file, launch_rank));
  ResultOnce result_file(ExpandRank(options.result_file, launch_rank));
  MlLog mllog(ExpandRank(options.mllog_file, launch_rank));
  mllog.Start("init_start");

  // What is known of this rank so far; a failure at any point reports it with the error.
  RankResult result;
  result.rank = launch_rank;
  std::mutex result_mutex;  // the stop watchdog reads `result` from its thread
  auto fail = [&](const Status& status, int exit_code) {
    RankResult failed;
    {
      std::lock_guard<std::mutex> lock(result_mutex);
      failed = result;
    }
    failed.status = status.code() == StatusCode::kCancelled ? kRankCancelled : kRankFailed;
    failed.error = status.message();
    failed.summary = "rank " + std::to_string(failed.rank) + " " + failed.status + ": " +
                     failed.error.substr(0, failed.error.find('\n'));
    if (result_file.Write(failed)) std::cout << failed.summary << std::endl;
    return status.code() == StatusCode::kCancelled && StopSignal() != 0 ? 128 + StopSignal() : exit_code;
  };

  StatusOr<std::vector<Benchmark>> loaded = LoadBenchmarkFile(options.config_path);
  if (!loaded.ok()) return fail(loaded.status(), kExitBadConfig);
  if (loaded->size() != 1) {
    return fail(Status::InvalidArgument(options.config_path + ": holds " + std::to_string(loaded->size()) +
                                        " Benchmarks; the runner takes exactly one"),
                kExitBadConfig);
  }
  const Benchmark& benchmark = loaded->front();
  result.benchmark = benchmark.metadata.name;
  result.task = benchmark.spec.task;
  result.backend = benchmark.spec.backend;
  result.world_size = *benchmark.spec.workers;

  StatusOr<std::unique_ptr<Task>> task = CreateTask(benchmark.spec.task);
  if (!task.ok()) return fail(task.status(), kExitBadConfig);

  const CpuBudget budget = ReadCpuBudget();
  const int threads = options.threads > 0 ? options.threads : ThreadsPerRank(budget, options.ranks_per_host);
  at::set_num_threads(threads);
  const nlohmann::json& seed = benchmark.spec.hyperparameters.value("seed", nlohmann::json(0));
  result.environment =
      DescribeEnvironment({budget, threads, benchmark.spec.backend, seed.is_number_integer() ? seed.get<int64_t>() : 0});

  RunnerMetrics metrics({benchmark.metadata.name, benchmark.spec.task, benchmark.spec.backend, launch_rank,
                         static_cast<int>(*benchmark.spec.workers)});
  EnergyRecorder energy(
      std::make_unique<EnergySampler>(DiscoverEnergyMeters(options.sysfs_root, options.nvml_library)), &metrics,
      options.ranks_per_host);
  result.environment["energyMeters"] = energy.Describe();
  energy.Start(std::chrono::milliseconds(options.energy_interval_ms));
  mllog.SetObserver([&energy](const std::string& type, const std::string& key) { energy.OnEvent(type, key); });
  std::unique_ptr<MetricsServer> server;
  if (options.metrics_port >= 0) {
    const int port = options.metrics_port_per_rank && options.metrics_port > 0 ? options.metrics_port + launch_rank
                                                                               : options.metrics_port;
    StatusOr<std::unique_ptr<MetricsServer>> started =
        MetricsServer::Start(options.metrics_bind, port, [&metrics] { return metrics.Render(); });
    if (!started.ok()) return fail(started.status(), kExitBadConfig);
    server = std::move(started).value();
    Log(launch_rank, "metrics on http://" + options.metrics_bind + ":" + std::to_string(server->port()) + "/metrics");
  }

  StopWatchdog watchdog(options.stop_grace_seconds, [&] {
    fail(Status::Cancelled("stopped by signal " + std::to_string(StopSignal()) + " while waiting for other ranks"), 0);
    std::_Exit(128 + StopSignal());
  });

  // On Kubernetes the output directory is a fresh emptyDir subpath: make it, as
  // `ergobench run` does for its results directory.
  if (!options.output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.output_dir, error);
    if (error) {
      return fail(Status::FailedPrecondition("cannot create --output-dir " + options.output_dir + ": " + error.message()),
                  kExitFailed);
    }
  }

  ProgressWriter progress(ExpandRank(options.progress_file, launch_rank), launch_rank);
  progress.ReportStage("init");
  StatusOr<std::unique_ptr<Communicator>> communicator = Connect(benchmark, options);
  if (!communicator.ok()) return fail(communicator.status(), kExitFailed);
  watchdog.MarkConnected();
  {
    std::lock_guard<std::mutex> lock(result_mutex);
    result.rank = (*communicator)->rank();
    result.figures.init_seconds = std::chrono::duration<double>(Clock::now() - process_start).count();
  }
  Log(result.rank, "joined " + std::to_string((*communicator)->world_size()) + " ranks over " + benchmark.spec.backend +
                       " in " + FormatSeconds(result.figures.init_seconds) + "; " +
                       std::to_string(threads) + " threads");

  TaskContext context{benchmark, **communicator, metrics, progress, options.output_dir, mllog};
  StatusOr<TaskOutcome> outcome = (*task)->Run(context);
  if (!outcome.ok()) {
    const int exit_code = fail(outcome.status(), kExitFailed);
    // Ranks that agreed to stop all leave together; a lone failure must take the others down.
    if (outcome.status().code() != StatusCode::kCancelled) (*communicator)->AbortJob(exit_code);
    return exit_code;
  }

  RankResult succeeded = result;
  succeeded.figures = outcome->figures;
  energy.Finish(&succeeded.figures);
  succeeded.figures.init_seconds = result.figures.init_seconds + outcome->figures.init_seconds;
  succeeded.status = kRankSucceeded;
  succeeded.summary = "rank " + std::to_string(result.rank) + " succeeded: " + outcome->summary;
  if (!result_file.Write(succeeded)) return 128 + StopSignal();  // the watchdog reported a stop first
  watchdog.Disarm();
  progress.ReportStage("done");
  std::cout << succeeded.summary << std::endl;
  return kExitOk;
}

}  // namespace ergobench
