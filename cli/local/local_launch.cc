#include "cli/local/local_launch.h"

#include "api/contract/runner_invocation.h"

namespace ergobench {
namespace {

std::string RankPath(const std::string& dir, const std::string& rank, const char* suffix) {
  return dir + "/rank-" + rank + suffix;
}

// The invocation shared by every rank; paths keep "{rank}" for the runner to expand, which is
// what lets one mpirun command line serve all ranks.
RunnerInvocation RankInvocation(const Benchmark& benchmark, const LaunchPlan& plan) {
  RunnerInvocation invocation;
  invocation.config_path = plan.config_path;
  invocation.result_file = RankPath(plan.results_dir, "{rank}", ".json");
  invocation.summary_file = RankPath(plan.results_dir, "{rank}", ".summary");
  invocation.progress_file = RankPath(plan.results_dir, "{rank}", ".progress");
  invocation.mllog_file = RankPath(plan.results_dir, "{rank}", ".mllog");
  invocation.output_dir = plan.results_dir;
  invocation.metrics_bind = "127.0.0.1";
  invocation.metrics_port = plan.metrics_port;
  invocation.metrics_port_per_rank = plan.metrics_port > 0;
  invocation.rendezvous_timeout_seconds = plan.rendezvous_timeout_seconds;
  invocation.stop_grace_seconds = plan.stop_grace_seconds;
  invocation.ranks_per_host = static_cast<int>(benchmark.spec.workers);
  invocation.repeat = plan.repeat;
  return invocation;
}

std::vector<std::string> RunnerCommand(const std::string& runner_path, const RunnerInvocation& invocation) {
  std::vector<std::string> argv = {runner_path};
  const std::vector<std::string> args = invocation.ToArgs();
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

std::string RankResultPath(const std::string& dir, int rank) { return RankPath(dir, std::to_string(rank), ".json"); }
std::string RankSummaryPath(const std::string& dir, int rank) { return RankPath(dir, std::to_string(rank), ".summary"); }
std::string RankLogPath(const std::string& dir, int rank) { return RankPath(dir, std::to_string(rank), ".log"); }
std::string RankProgressPath(const std::string& dir, int rank) {
  return RankPath(dir, std::to_string(rank), ".progress");
}

std::vector<ChildSpec> BuildLocalLaunch(const Benchmark& benchmark, const LaunchPlan& plan) {
  const int workers = static_cast<int>(benchmark.spec.workers);
  RunnerInvocation invocation = RankInvocation(benchmark, plan);
  if (benchmark.spec.backend == "mpi") {
    invocation.log_file = RankPath(plan.results_dir, "{rank}", ".log");
    std::vector<std::string> argv = {plan.mpirun_path, "-np", std::to_string(workers), "--oversubscribe",
                                     "--bind-to", "none"};
    if (plan.as_root) argv.push_back("--allow-run-as-root");
    const std::vector<std::string> runner = RunnerCommand(plan.runner_path, invocation);
    argv.insert(argv.end(), runner.begin(), runner.end());
    return {ChildSpec{argv, {}, plan.results_dir + "/mpirun.log"}};
  }
  invocation.bind_address = "127.0.0.1";
  const std::vector<std::string> argv = RunnerCommand(plan.runner_path, invocation);
  std::vector<ChildSpec> ranks;
  for (int rank = 0; rank < workers; ++rank) {
    const RendezvousEnv env{rank, workers, "127.0.0.1", plan.master_port};
    ranks.push_back(ChildSpec{argv, env.ToEnv(), RankLogPath(plan.results_dir, rank)});
  }
  return ranks;
}

}  // namespace ergobench
