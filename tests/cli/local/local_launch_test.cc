#include "cli/local/local_launch.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

Benchmark Bench(const std::string& backend, int workers) {
  Benchmark b;
  b.api_version = kApiVersion;
  b.kind = kKind;
  b.metadata.name = "t";
  b.spec.task = "0a";
  b.spec.backend = backend;
  b.spec.workers = workers;
  ApplyDefaults(&b);
  return b;
}

LaunchPlan Plan() {
  LaunchPlan plan;
  plan.runner_path = "/opt/ergobench-runner";
  plan.results_dir = "out/t";
  plan.config_path = "out/t/benchmark.json";
  plan.master_port = 29555;
  plan.metrics_port = 19400;
  plan.rendezvous_timeout_seconds = 30;
  plan.stop_grace_seconds = 5;
  return plan;
}

std::string Join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) out += (out.empty() ? "" : " ") + a;
  return out;
}

TEST(LocalLaunchTest, GlooStartsOneRunnerPerRank) {
  std::vector<ChildSpec> specs = BuildLocalLaunch(Bench("gloo", 3), Plan());
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(Join(specs[2].argv),
            "/opt/ergobench-runner --config out/t/benchmark.json --result-file out/t/rank-{rank}.json "
            "--output-dir out/t --progress-file out/t/rank-{rank}.progress --summary-file out/t/rank-{rank}.summary "
            "--mllog-file out/t/rank-{rank}.mllog --metrics-port 19400 --metrics-port-per-rank --metrics-bind 127.0.0.1 "
            "--bind-address 127.0.0.1 --rendezvous-timeout 30 --collective-timeout 1800 --ranks-per-host 3 --ranks-on-node 0 "
            "--stop-grace 5 --artifact-linger 0 --energy-interval 100");
  EXPECT_EQ(specs[2].env, (std::vector<std::pair<std::string, std::string>>{
                              {"RANK", "2"}, {"WORLD_SIZE", "3"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29555"}}));
  EXPECT_EQ(specs[2].output_path, "out/t/rank-2.log");
}

TEST(LocalLaunchTest, MpiIsOneMpirun) {
  LaunchPlan plan = Plan();
  plan.as_root = true;
  plan.metrics_port = 0;
  std::vector<ChildSpec> specs = BuildLocalLaunch(Bench("mpi", 2), plan);
  ASSERT_EQ(specs.size(), 1u);
  const std::string command = Join(specs[0].argv);
  EXPECT_EQ(command.find("mpirun -np 2 --oversubscribe --bind-to none --allow-run-as-root /opt/ergobench-runner "), 0u)
      << command;
  EXPECT_NE(command.find("--log-file out/t/rank-{rank}.log"), std::string::npos);
  EXPECT_EQ(command.find("--metrics-port-per-rank"), std::string::npos);  // free ports, one each
  EXPECT_TRUE(specs[0].env.empty());
  EXPECT_EQ(specs[0].output_path, "out/t/mpirun.log");
}

}  // namespace
}  // namespace ergobench
