#include "api/contract/mlperf_log_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

using nlohmann::json;

struct Line {
  std::string key;
  json value = nullptr;
  json metadata = json::object();
  double time_ms = 0;
};

std::string Log(const std::vector<Line>& lines) {
  std::string text;
  for (const Line& l : lines) {
    text += ":::MLLOG " + json{{"namespace", ""}, {"time_ms", l.time_ms}, {"event_type", "POINT_IN_TIME"},
                               {"key", l.key}, {"value", l.value}, {"metadata", l.metadata}}.dump() + "\n";
  }
  return text;
}

// A closed-division ResNet log with the SGD optimizer as the rules of MLPerf Training 4.0.0 ask
// for it: the submission, cache_clear, init and run in order, two blocks of one epoch each with
// an evaluation after each, the second reaching 75.9 % top-1.
std::vector<Line> ClosedResnet() {
  return {
      {"submission_org", "ergobench"}, {"submission_platform", "1xc5.4xlarge"}, {"submission_division", "closed"},
      {"submission_status", "research"}, {"submission_benchmark", "resnet"}, {"cache_clear", true},
      {"init_start", nullptr, {}, 1000}, {"global_batch_size", 256}, {"gradient_accumulation_steps", 1},
      {"opt_name", "sgd"}, {"sgd_opt_base_learning_rate", 0.256}, {"sgd_opt_end_learning_rate", 0.0001},
      {"sgd_opt_learning_rate_decay_poly_power", 2}, {"sgd_opt_learning_rate_decay_steps", 5000},
      {"sgd_opt_weight_decay", 0.0001 * 0.5}, {"sgd_opt_momentum", 0.9}, {"model_bn_span", 32},
      {"opt_learning_rate_warmup_epochs", 2}, {"train_samples", 1281167}, {"eval_samples", 50000},
      {"init_stop", nullptr, {}, 60000}, {"run_start", nullptr, {}, 60001},
      {"block_start", nullptr, {{"first_epoch_num", 1}, {"epoch_count", 1}}},
      {"epoch_start", nullptr, {{"epoch_num", 1}}}, {"epoch_stop", nullptr, {{"epoch_num", 1}}},
      {"block_stop", nullptr, {{"first_epoch_num", 1}}}, {"eval_start", nullptr, {{"epoch_num", 1}}},
      {"eval_accuracy", 0.41, {{"epoch_num", 1}}}, {"eval_stop", nullptr, {{"epoch_num", 1}}},
      {"block_start", nullptr, {{"first_epoch_num", 2}, {"epoch_count", 1}}},
      {"epoch_start", nullptr, {{"epoch_num", 2}}}, {"epoch_stop", nullptr, {{"epoch_num", 2}}},
      {"block_stop", nullptr, {{"first_epoch_num", 2}}}, {"eval_start", nullptr, {{"epoch_num", 2}}},
      {"eval_accuracy", 0.7593, {{"epoch_num", 2}}}, {"eval_stop", nullptr, {{"epoch_num", 2}}},
      {"run_stop", nullptr, {{"status", "success"}}},
  };
}

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
