// What a launcher writes with ToArgs() is what the runner reads back: the command line
// round-trips through the runner's real parser for every field.
#include "runner/runner_flags.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "base/status.h"

namespace ergobench {
namespace {

StatusOr<RunnerInvocation> Parse(const std::vector<std::string>& args) {
  RunnerInvocation parsed;
  CLI::App app;
  AddRunnerFlags(app, &parsed);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(e.what());
  }
  return parsed;
}

TEST(RunnerFlagsTest, EveryFieldRoundTrips) {
  RunnerInvocation sent;
  sent.config_path = "/c.json";
  sent.result_file = "/r/rank-{rank}.json";
  sent.output_dir = "/out";
  sent.progress_file = "/p";
  sent.summary_file = "/s";
  sent.log_file = "/l";
  sent.mllog_file = "/m";
  sent.metrics_port = 19400;
  sent.metrics_port_per_rank = true;
  sent.metrics_bind = "127.0.0.1";
  sent.bind_address = "10.1.2.3";
  sent.rendezvous_timeout_seconds = 12.5;
  sent.collective_timeout_seconds = 60;
  sent.threads = 3;
  sent.ranks_per_host = 2;
  sent.stop_grace_seconds = 0.5;
  sent.energy_interval_ms = 0;
  sent.sysfs_root = "/fake/sys";
  sent.nvml_library = "/x/libnvml.so";
  StatusOr<RunnerInvocation> received = Parse(sent.ToArgs());
  ASSERT_TRUE(received.ok()) << received.status().ToString();
  EXPECT_EQ(*received, sent);
  EXPECT_NE(RunnerInvocation(), sent);  // every field above differs from its default
}

TEST(RunnerFlagsTest, TheEnvironmentStillSetsWhatALauncherLeftAtItsDefault) {
  RunnerInvocation sent;  // threads 0: derive them, unless ERGOBENCH_THREADS says otherwise
  sent.config_path = "/c.json";
  setenv("ERGOBENCH_THREADS", "3", 1);
  StatusOr<RunnerInvocation> received = Parse(sent.ToArgs());
  unsetenv("ERGOBENCH_THREADS");
  ASSERT_TRUE(received.ok()) << received.status().ToString();
  EXPECT_EQ(received->threads, 3);
}

TEST(RunnerFlagsTest, ChecksAndRequiredFlagsAreEnforced) {
  EXPECT_FALSE(Parse({}).ok());  // --config is required
  EXPECT_FALSE(Parse({"--config", "c", "--rendezvous-timeout", "0"}).ok());
  EXPECT_FALSE(Parse({"--config", "c", "--threads", "-1"}).ok());
  EXPECT_TRUE(Parse({"--config", "c", "--threads", "0"}).ok());
}

}  // namespace
}  // namespace ergobench
