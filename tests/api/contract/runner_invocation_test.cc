#include "api/contract/runner_invocation.h"

#include <gtest/gtest.h>

#include <set>

namespace ergobench {
namespace {

std::string Join(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

TEST(RunnerInvocationTest, NumbersAreExplicitButEnvironmentFlagsAtTheirDefaultAreLeftToTheEnvironment) {
  RunnerInvocation invocation;
  invocation.config_path = "/etc/ergobench/benchmark.json";
  // --metrics-port, --rendezvous-timeout, --threads and --nvml-library hold their defaults and
  // have variables (ERGOBENCH_METRICS_PORT, ...): left out, so that the variables still apply.
  EXPECT_EQ(Join(invocation.ToArgs()),
            "--config /etc/ergobench/benchmark.json --metrics-bind 0.0.0.0 --collective-timeout 1800 "
            "--ranks-per-host 1 --ranks-on-node 0 --stop-grace 10 --artifact-linger 0 --energy-interval 100");
  invocation.threads = 3;
  invocation.metrics_port = 19400;
  const std::string args = Join(invocation.ToArgs());
  EXPECT_NE(args.find("--metrics-port 19400 "), std::string::npos) << args;
  EXPECT_NE(args.find("--threads 3 "), std::string::npos) << args;
}

TEST(RunnerInvocationTest, SwitchesAppearOnlyWhenOnAndFractionsStayExact) {
  RunnerInvocation invocation;
  invocation.metrics_port_per_rank = true;
  invocation.rendezvous_timeout_seconds = 0.25;
  invocation.nvml_library = "/opt/nvidia/libnvidia-ml.so.1";
  const std::string args = Join(invocation.ToArgs());
  EXPECT_NE(args.find("--metrics-port-per-rank"), std::string::npos);
  EXPECT_NE(args.find("--rendezvous-timeout 0.25 "), std::string::npos) << args;
  EXPECT_NE(args.find("--nvml-library /opt/nvidia/libnvidia-ml.so.1"), std::string::npos) << args;
}

TEST(RunnerInvocationTest, EveryFieldHasExactlyOneFlag) {
  std::set<std::string> names;
  for (const RunnerFlag& flag : RunnerFlags()) {
    EXPECT_TRUE(names.insert(flag.name).second) << flag.name;
    EXPECT_EQ(std::string(flag.name).rfind("--", 0), 0u) << flag.name;
  }
  // 24 fields in RunnerInvocation; a field added without a flag would not reach the runner.
  EXPECT_EQ(RunnerFlags().size(), 24u);
}

TEST(RendezvousEnvTest, TheFourKubeflowVariables) {
  const RendezvousEnv env{2, 4, "b-worker-0.b-workers", 29500};
  EXPECT_EQ(env.ToEnv(), (std::vector<std::pair<std::string, std::string>>{
                             {"RANK", "2"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "b-worker-0.b-workers"},
                             {"MASTER_PORT", "29500"}}));
}

}  // namespace
}  // namespace ergobench
