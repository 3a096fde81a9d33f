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
  const MlperfLogCheck check = CheckMlperfLog(Log(ClosedResnet()));
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
  const MlperfLogCheck check = CheckMlperfLog(Log(lines));
  EXPECT_EQ(check.run_start_ms, 60001);
  EXPECT_EQ(check.run_stop_ms, 660001);
  EXPECT_EQ(check.run_stop_status, "success");
  EXPECT_EQ(check.seed, 42);
  EXPECT_EQ(check.last_eval_epoch, 2);
  const MlperfLogCheck without = CheckMlperfLog(Log(Without(ClosedResnet(), "run_stop")));
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
    const MlperfLogCheck check = CheckMlperfLog(Log(Without(ClosedResnet(), key)));
    EXPECT_FALSE(check.Passed()) << key;
    const bool named = std::any_of(check.findings.begin(), check.findings.end(), [&](const MlperfLogFinding& f) {
      return !f.warning && f.key == key && f.rules == rules;
    });
    EXPECT_TRUE(named) << key << "\n" << Messages(check);
  }
  // Blocks and epochs stand in for each other; without both, the log fails.
  EXPECT_TRUE(CheckMlperfLog(Log(Without(ClosedResnet(), "block_start"))).Passed());
  EXPECT_FALSE(CheckMlperfLog(Log(Without(Without(ClosedResnet(), "block_start"), "epoch_start"))).Passed());
}

TEST(MlperfLogRulesTest, ValuesAndOrderAreChecked) {
  auto with = [](const std::string& key, json value) {
    std::vector<Line> lines = ClosedResnet();
    for (Line& l : lines) {
      if (l.key == key) l.value = value;
    }
    return CheckMlperfLog(Log(lines));
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
  const MlperfLogCheck check = CheckMlperfLog(Log(late));
  EXPECT_FALSE(check.Passed());
  EXPECT_NE(Messages(check).find("common init_stop line 22: init_stop after run_start"), std::string::npos)
      << Messages(check);

  std::vector<Line> slow = ClosedResnet();  // 31 minutes of initialisation: the closed division allows 30
  for (Line& l : slow) {
    if (l.key == "init_stop") l.time_ms = 1000 + 31 * 60e3;
  }
  EXPECT_FALSE(CheckMlperfLog(Log(slow)).Passed());
  std::vector<Line> eval_without_epoch = ClosedResnet();
  eval_without_epoch[27].metadata = {{"step_num", 100}};
  EXPECT_FALSE(CheckMlperfLog(Log(eval_without_epoch)).Passed()) << "ResNet's evaluations need epoch_num";
}

// As the checker: a line that does not parse and an EXACTLY_ONE key repeated with one value warn.
TEST(MlperfLogRulesTest, WarningsDoNotFail) {
  std::string text = Log(ClosedResnet());
  text += ":::MLLOG {not json\n";
  text += Log({{"train_samples", 1281167}});
  const MlperfLogCheck check = CheckMlperfLog(text);
  EXPECT_TRUE(check.Passed()) << Messages(check);
  ASSERT_EQ(check.findings.size(), 2u) << Messages(check);
  EXPECT_TRUE(check.findings[0].warning && check.findings[1].warning);
  EXPECT_FALSE(CheckMlperfLog(text + Log({{"train_samples", 5}})).Passed()) << "different values";
  EXPECT_FALSE(CheckMlperfLog("").Passed()) << "No log lines detected";
}

// A task MLPerf does not have (fmnist) passes everything but the benchmark's name.
TEST(MlperfLogRulesTest, AnotherTaskPassesAllButItsName) {
  std::vector<Line> lines = ClosedResnet();
  for (Line& l : lines) {
    if (l.key == "submission_benchmark") l.value = "fmnist";
    if (l.key == "submission_division") l.value = "open";
  }
  const MlperfLogCheck check = CheckMlperfLog(Log(lines));
  EXPECT_FALSE(check.Passed());
  EXPECT_TRUE(check.PassedExcept("open_common")) << Messages(check);
}

// MLPerf HPC 3.0.0 for a log of cosmoflow (the checker's --usage hpc --ruleset 3.0.0): the log
// passes; each key its rules require fails it left out, named with its rule file; eval_accuracy
// is not one of them.
TEST(MlperfLogRulesTest, ACosmoflowLogIsCheckedByHpcRules) {
  const MlperfLogCheck check = CheckMlperfLog(Log(ClosedCosmoflow()));
  EXPECT_TRUE(check.findings.empty()) << Messages(check);
  EXPECT_EQ((check.ruleset + " " + check.division + " " + check.benchmark), "hpc 3.0.0 closed cosmoflow");
  EXPECT_EQ(check.last_eval_epoch, 2) << "eval_error's epochs are what the summarizer counts";
  const std::vector<std::pair<std::string, std::string>> required = {
      {"cache_clear", "common"}, {"init_stop", "common"}, {"train_samples", "common"},
      {"number_of_nodes", "closed_common"}, {"accelerators_per_node", "closed_common"},
      {"global_batch_size", "closed_cosmoflow"}, {"opt_name", "closed_cosmoflow"},
      {"opt_base_learning_rate", "closed_cosmoflow"}, {"opt_learning_rate_warmup_epochs", "closed_cosmoflow"},
      {"opt_learning_rate_warmup_factor", "closed_cosmoflow"}, {"opt_learning_rate_decay_boundary_epochs", "closed_cosmoflow"},
      {"opt_learning_rate_decay_factor", "closed_cosmoflow"}, {"eval_error", "closed_cosmoflow"}};
  for (const auto& [key, rules] : required) {
    const MlperfLogCheck without = CheckMlperfLog(Log(Without(ClosedCosmoflow(), key)));
    const bool named = std::any_of(without.findings.begin(), without.findings.end(), [&](const MlperfLogFinding& f) {
      return !f.warning && f.key == key && f.rules == rules;
    });
    EXPECT_TRUE(named) << key << "\n" << Messages(without);
  }
  EXPECT_TRUE(CheckMlperfLog(Log(Without(Without(Without(ClosedCosmoflow(), "dropout"), "opt_weight_decay"),
                                         "staging_start"))).findings.size() == 0 + 1)
      << "dropout and weight decay are optional; a staging_stop without its start is not";
}

TEST(MlperfLogRulesTest, HpcValuesAndDivisionsAreChecked) {
  const auto check = [](std::vector<Line> lines, const std::string& key, const json& value) {
    for (Line& l : lines) {
      if (l.key == key) l.value = value;
    }
    return Messages(CheckMlperfLog(Log(lines)));
  };
  EXPECT_EQ(check(ClosedCosmoflow(), "opt_name", "adam"), "closed_cosmoflow opt_name line 13: value must be sgd\n");
  EXPECT_EQ(check(ClosedCosmoflow(), "dropout", 1.0), "closed_cosmoflow dropout line 19: value must be in [0, 1)\n");
  EXPECT_EQ(check(ClosedCosmoflow(), "number_of_nodes", 0), "closed_common number_of_nodes line 7: value must be above 0\n");
  EXPECT_EQ(check(ClosedCosmoflow(), "eval_error", 0.2), "closed_cosmoflow eval_error line 0: no eval_error reached 0.124 (and above 0)\n");
  // Open: no system scale, no optimizer keys; the target still.
  std::vector<Line> open = Without(Without(Without(ClosedCosmoflow(), "number_of_nodes"), "opt_name"), "accelerators_per_node");
  for (Line& l : open) {
    if (l.key == "submission_division") l.value = "open";
  }
  EXPECT_EQ(Messages(CheckMlperfLog(Log(open))), "");
  EXPECT_EQ(check(open, "eval_error", 0.2), "open_cosmoflow eval_error line 0: no eval_error reached 0.124 (and above 0)\n");
  // Initialisation: 30 minutes in either division (Training gives open 240), as HPC's common.yaml.
  std::vector<Line> slow = open;
  for (Line& l : slow) {
    if (l.key == "init_stop") l.time_ms = 1000 + 30 * 60e3;
  }
  EXPECT_EQ(Messages(CheckMlperfLog(Log(slow))), "common init_stop line 20: initialisation took longer than the division allows (30 min)\n");
}

}  // namespace
}  // namespace ergobench
