#include "runner/metrics/mllog.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

TEST(MlLogTest, WritesMlperfLines) {
  const std::string path = ::testing::TempDir() + "/mllog.txt";
  std::remove(path.c_str());
  {
    int64_t now = 1000;
    MlLog log(path, [&now] { return now++; });
    log.Start("run_start");
    log.Point("eval_accuracy", 0.81, {{"epoch_num", 3}});
    log.Stop("run_stop", {{"status", "success"}});
  }
  std::ifstream in(path);
  std::string line;
  std::vector<nlohmann::json> events;
  while (std::getline(in, line)) {
    ASSERT_EQ(line.rfind(":::MLLOG ", 0), 0u) << line;
    events.push_back(nlohmann::json::parse(line.substr(9)));
  }
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["event_type"], "INTERVAL_START");
  EXPECT_EQ(events[0]["key"], "run_start");
  EXPECT_EQ(events[0]["time_ms"], 1000);
  EXPECT_EQ(events[1]["event_type"], "POINT_IN_TIME");
  EXPECT_EQ(events[1]["value"], 0.81);
  EXPECT_EQ(events[1]["metadata"]["epoch_num"], 3);
  EXPECT_EQ(events[2]["key"], "run_stop");
  EXPECT_EQ(events[2]["metadata"]["status"], "success");
  EXPECT_EQ(events[2]["namespace"], "");
}

// In a pod the output directory is made after the log is opened: the log makes its folder,
// or the run's mllog would be lost without a word.
TEST(MlLogTest, MakesTheFolderItWritesIn) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "mllog-made" / "output";
  std::filesystem::remove_all(dir.parent_path());
  {
    MlLog log((dir / "rank-0.mllog").string());
    log.Start("init_start");
  }
  std::ifstream in(dir / "rank-0.mllog");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_NE(line.find("\"key\":\"init_start\""), std::string::npos) << line;
  std::filesystem::remove_all(dir.parent_path());
}

}  // namespace
}  // namespace ergobench
