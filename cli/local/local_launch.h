// Pure builders of the commands that start a Benchmark's ranks on this machine: k runner
// processes for gloo, one mpirun for mpi. Kept apart from the executor so that the exact
// command lines can be tested without starting anything.
#pragma once

#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"
#include "base/child_process.h"

namespace ergobench {

struct LaunchPlan {
  std::string runner_path;
  std::string mpirun_path = "mpirun";
  std::string results_dir;
  std::string config_path;  // the resolved benchmark.json
  int master_port = 0;      // gloo rendezvous
  int metrics_port = 0;     // base port; 0 picks, -1 disables
  double rendezvous_timeout_seconds = 60;
  double stop_grace_seconds = 10;
  bool as_root = false;  // mpirun refuses root unless told
  int repeat = 0;        // of spec.repeats: the ranks derive their seed from it
};

std::vector<ChildSpec> BuildLocalLaunch(const Benchmark& benchmark, const LaunchPlan& plan);

std::string RankResultPath(const std::string& results_dir, int rank);
std::string RankSummaryPath(const std::string& results_dir, int rank);
std::string RankLogPath(const std::string& results_dir, int rank);
std::string RankProgressPath(const std::string& results_dir, int rank);

}  // namespace ergobench
