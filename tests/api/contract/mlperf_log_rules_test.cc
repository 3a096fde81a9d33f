#include "api/contract/mlperf_log_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testing/mlperf_log_fixture.h"

namespace ergobench {
namespace {

using nlohmann::json;
using namespace mllog_fixture;  // NOLINT: Line, Log, ClosedResnet

std::vector<Line> Without(std::vector<Line> lines, const std::string& key) {
  std::erase_if(lines, [&](const Line& l) { return l.key == key; });
  return lines;
}

std::string Messages(const MlperfLogCheck& check) {
  std::string text;
  for (const MlperfLogFinding& f : check.findings) {
    text += f.rules + " " + f.key + " line " + std::to_string(f.line) + ": " + f.message + (f.warning ? " (warning)" : "") + "\n";
  }
  return text;
}

TEST(MlperfLogRulesTest, AClosedResnetLogPassesEveryRuleFile) {
  const MlperfLogCheck check = CheckMlperfTrainingLog(Log(ClosedResnet()));
  EXPECT_TRUE(check.Passed()) << Messages(check);
  EXPECT_TRUE(check.findings.empty()) << Messages(check);
  EXPECT_EQ(check.division, "closed");
  EXPECT_EQ(check.benchmark, "resnet");
}

// What the result summarizer reads: the first run_start and run_stop, run_stop's status, the
// seed, and the epoch of the last evaluation before run_stop.
TEST(MlperfLogRulesTest, TheCheckReadsWhatTheSummarizerScores) {
  std::vector<Line> lines = ClosedResnet();
  lines.back().time_ms = 660001;  // ten minutes after run_start
  lines.insert(lines.begin() + 8, Line{"seed", 42});
  lines.push_back({"eval_accuracy", 0.8, {{"epoch_num", 3}}, 660002});  // after run_stop: not counted
  const MlperfLogCheck check = CheckMlperfTrainingLog(Log(lines));
  EXPECT_EQ(check.run_start_ms, 60001);
  EXPECT_EQ(check.run_stop_ms, 660001);
  EXPECT_EQ(check.run_stop_status, "success");
  EXPECT_EQ(check.seed, 42);
  EXPECT_EQ(check.last_eval_epoch, 2);
  const MlperfLogCheck without = CheckMlperfTrainingLog(Log(Without(ClosedResnet(), "run_stop")));
  EXPECT_FALSE(without.run_stop_ms.has_value());
  EXPECT_EQ(without.run_stop_status, "");
}

// Each required key, left out, fails the log, naming the key and the rule file that needs it.
TEST(MlperfLogRulesTest, EachRequiredKeyLeftOutFailsNamingIt) {
  const std::vector<std::pair<std::string, std::string>> required = {
      {"submission_org", "common"}, {"submission_platform", "common"}, {"submission_status", "common"},
      {"cache_clear", "common"}, {"init_start", "common"}, {"init_stop", "common"}, {"run_start", "common"},
      {"run_stop", "common"}, {"eval_accuracy", "common"}, {"train_samples", "common"}, {"eval_samples", "common"},
      {"submission_benchmark", "closed_common"}, {"gradient_accumulation_steps", "closed_common"},
      {"global_batch_size", "closed_resnet"}, {"opt_name", "closed_resnet"},
      {"sgd_opt_momentum", "closed_resnet_sgd"}, {"model_bn_span", "closed_resnet_sgd"},
      {"opt_learning_rate_warmup_epochs", "closed_resnet_sgd"}};
  for (const auto& [key, rules] : required) {
    const MlperfLogCheck check = CheckMlperfTrainingLog(Log(Without(ClosedResnet(), key)));
    EXPECT_FALSE(check.Passed()) << key;
    const bool named = std::any_of(check.findings.begin(), check.findings.end(), [&](const MlperfLogFinding& f) {
      return !f.warning && f.key == key && f.rules == rules;
    });
    EXPECT_TRUE(named) << key << "\n" << Messages(check);
  }
  // Blocks and epochs stand in for each other; without both, the log fails.
  EXPECT_TRUE(CheckMlperfTrainingLog(Log(Without(ClosedResnet(), "block_start"))).Passed());
  EXPECT_FALSE(CheckMlperfTrainingLog(Log(Without(Without(ClosedResnet(), "block_start"), "epoch_start"))).Passed());
}

TEST(MlperfLogRulesTest, ValuesAndOrderAreChecked) {
  auto with = [](const std::string& key, json value) {
    std::vector<Line> lines = ClosedResnet();
    for (Line& l : lines) {
      if (l.key == key) l.value = value;
    }
    return CheckMlperfTrainingLog(Log(lines));
  };
  EXPECT_FALSE(with("submission_division", "hybrid").Passed());
  EXPECT_FALSE(with("submission_status", "lab").Passed());
  EXPECT_FALSE(with("submission_org", "").Passed());
  EXPECT_FALSE(with("opt_name", "adam").Passed());
  EXPECT_FALSE(with("gradient_accumulation_steps", 0).Passed());
  EXPECT_FALSE(with("sgd_opt_base_learning_rate", 0.2565).Passed()) << "not a multiple of 0.001";
  EXPECT_FALSE(with("sgd_opt_weight_decay", 0.00003).Passed()) << "not 1e-4 times a power of 2";
  EXPECT_FALSE(with("sgd_opt_end_learning_rate", 0.001).Passed());
  EXPECT_FALSE(with("eval_accuracy", 0.75).Passed()) << "no evaluation reached 75.9 %";

  std::vector<Line> late = ClosedResnet();  // init_stop after run_start
  std::swap(late[20], late[21]);
  const MlperfLogCheck check = CheckMlperfTrainingLog(Log(late));
  EXPECT_FALSE(check.Passed());
  EXPECT_NE(Messages(check).find("common init_stop line 22: init_stop after run_start"), std::string::npos)
      << Messages(check);

  std::vector<Line> slow = ClosedResnet();  // 31 minutes of initialisation: the closed division allows 30
  for (Line& l : slow) {
    if (l.key == "init_stop") l.time_ms = 1000 + 31 * 60e3;
  }
  EXPECT_FALSE(CheckMlperfTrainingLog(Log(slow)).Passed());
  std::vector<Line> eval_without_epoch = ClosedResnet();
  eval_without_epoch[27].metadata = {{"step_num", 100}};
  EXPECT_FALSE(CheckMlperfTrainingLog(Log(eval_without_epoch)).Passed()) << "ResNet's evaluations need epoch_num";
}

// As the checker: a line that does not parse and an EXACTLY_ONE key repeated with one value warn.
TEST(MlperfLogRulesTest, WarningsDoNotFail) {
  std::string text = Log(ClosedResnet());
  text += ":::MLLOG {not json\n";
  text += Log({{"train_samples", 1281167}});
  const MlperfLogCheck check = CheckMlperfTrainingLog(text);
  EXPECT_TRUE(check.Passed()) << Messages(check);
  ASSERT_EQ(check.findings.size(), 2u) << Messages(check);
  EXPECT_TRUE(check.findings[0].warning && check.findings[1].warning);
  EXPECT_FALSE(CheckMlperfTrainingLog(text + Log({{"train_samples", 5}})).Passed()) << "different values";
  EXPECT_FALSE(CheckMlperfTrainingLog("").Passed()) << "No log lines detected";
}

// A task MLPerf does not have (fmnist) passes everything but the benchmark's name.
TEST(MlperfLogRulesTest, AnotherTaskPassesAllButItsName) {
  std::vector<Line> lines = ClosedResnet();
  for (Line& l : lines) {
    if (l.key == "submission_benchmark") l.value = "fmnist";
    if (l.key == "submission_division") l.value = "open";
  }
  const MlperfLogCheck check = CheckMlperfTrainingLog(Log(lines));
  EXPECT_FALSE(check.Passed());
  EXPECT_TRUE(check.PassedExcept("open_common")) << Messages(check);
}

}  // namespace
}  // namespace ergobench
