#include "operator/local/local_launch.h"

namespace ergobench {
namespace {

std::string RankPath(const std::string& dir, const std::string& rank, const char* suffix) {
  return dir + "/rank-" + rank + suffix;
}

// Arguments shared by every rank; paths keep "{rank}" for the runner to expand, which is
// what lets one mpirun command line serve all ranks.
std::vector<std::string> RunnerArgs(const Benchmark& benchmark, const LaunchPlan& plan) {
  const int workers = static_cast<int>(*benchmark.spec.workers);
  std::vector<std::string> args = {
      plan.runner_path,
      "--config", plan.config_path,
      "--result-file", RankPath(plan.results_dir, "{rank}", ".json"),
      "--progress-file", RankPath(plan.results_dir, "{rank}", ".progress"),
      "--mllog-file", RankPath(plan.results_dir, "{rank}", ".mllog"),
      "--output-dir", plan.results_dir,
      "--metrics-bind", "127.0.0.1",
      "--metrics-port", std::to_string(plan.metrics_port),
      "--rendezvous-timeout", std::to_string(plan.rendezvous_timeout_seconds),
      "--stop-grace", std::to_string(plan.stop_grace_seconds),
      "--ranks-per-host", std::to_string(workers),
  };
  if (plan.metrics_port > 0) args.push_back("--metrics-port-per-rank");
  return args;
}

}  // namespace

std::string RankResultPath(const std::string& dir, int rank) { return RankPath(dir, std::to_string(rank), ".json"); }
std::string RankLogPath(const std::string& dir, int rank) { return RankPath(dir, std::to_string(rank), ".log"); }
std::string RankProgressPath(const std::string& dir, int rank) {
  return RankPath(dir, std::to_string(rank), ".progress");
}

std::vector<ChildSpec> BuildLocalLaunch(const Benchmark& benchmark, const LaunchPlan& plan) {
  const int workers = static_cast<int>(*benchmark.spec.workers);
  std::vector<std::string> runner = RunnerArgs(benchmark, plan);
  if (benchmark.spec.backend == "mpi") {
    std::vector<std::string> argv = {plan.mpirun_path, "-np", std::to_string(workers), "--oversubscribe",
                                     "--bind-to", "none"};
    if (plan.as_root) argv.push_back("--allow-run-as-root");
    argv.insert(argv.end(), runner.begin(), runner.end());
    argv.push_back("--log-file");
    argv.push_back(RankPath(plan.results_dir, "{rank}", ".log"));
    return {ChildSpec{argv, {}, plan.results_dir + "/mpirun.log"}};
  }
  std::vector<ChildSpec> ranks;
  for (int rank = 0; rank < workers; ++rank) {
    std::vector<std::string> argv = runner;
    argv.push_back("--bind-address");
    argv.push_back("127.0.0.1");
    ranks.push_back(ChildSpec{argv,
                              {{"RANK", std::to_string(rank)},
                               {"WORLD_SIZE", std::to_string(workers)},
                               {"MASTER_ADDR", "127.0.0.1"},
                               {"MASTER_PORT", std::to_string(plan.master_port)}},
                              RankLogPath(plan.results_dir, rank)});
  }
  return ranks;
}

}  // namespace ergobench
