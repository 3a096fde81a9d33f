#include "runner/dist/rendezvous_env.h"

#include <map>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(RendezvousEnvTest, ReadsTheFourVariables) {
  auto options = RendezvousFromEnv(
      Env({{"RANK", "2"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "bench-worker-0.bench-workers"}, {"MASTER_PORT", "29500"}}));
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->rank, 2);
  EXPECT_EQ(options->world_size, 4);
  EXPECT_EQ(options->master_addr, "bench-worker-0.bench-workers");
  EXPECT_EQ(options->master_port, 29500);
}

TEST(RendezvousEnvTest, NoneSetMeansOneLocalRank) {
  auto options = RendezvousFromEnv(Env({}));
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->world_size, 1);
  EXPECT_EQ(options->master_addr, "127.0.0.1");
  EXPECT_EQ(options->master_port, 0);
}

TEST(RendezvousEnvTest, NamesTheBadVariable) {
  auto missing = RendezvousFromEnv(Env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}));
  EXPECT_EQ(missing.status().message(), "MASTER_ADDR is not set");
  auto rank = RendezvousFromEnv(Env({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}));
  EXPECT_EQ(rank.status().message(), "RANK must be an integer between 0 and 1, got \"2\"");
  auto port = RendezvousFromEnv(Env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "http"}}));
  EXPECT_EQ(port.status().message(), "MASTER_PORT must be an integer between 1 and 65535, got \"http\"");
  auto size = RendezvousFromEnv(Env({{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}));
  EXPECT_EQ(size.status().message(), "WORLD_SIZE must be an integer between 1 and 1048576, got \"0\"");
}

}  // namespace
}  // namespace ergobench
