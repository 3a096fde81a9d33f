// MLPerf logs for tests: lines as a run writes them, and a closed-division ResNet log that
// passes every rule file of MLPerf Training 4.0.0 (tests/api/contract/mlperf_log_rules_test.cc
// pins that).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ergobench::mllog_fixture {

using nlohmann::json;

struct Line {
  std::string key;
  json value = nullptr;
  json metadata = json::object();
  double time_ms = 0;
};

inline std::string Log(const std::vector<Line>& lines) {
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
inline std::vector<Line> ClosedResnet() {
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

// A closed-division CosmoFlow log as MLPerf HPC 3.0.0's rules ask for it: the submission,
// the system's scale, the reference's SGD keys, staging inside initialisation, two epochs with
// an evaluation each, the second reaching the target MAE of 0.124.
inline std::vector<Line> ClosedCosmoflow() {
  return {
      {"submission_org", "ergobench"}, {"submission_platform", "2xc5.4xlarge"}, {"submission_division", "closed"},
      {"submission_status", "research"}, {"submission_benchmark", "cosmoflow"}, {"cache_clear", false},
      {"number_of_nodes", 2}, {"accelerators_per_node", 0}, {"init_start", nullptr, {}, 1000},
      {"staging_start", nullptr, {}, 2000}, {"staging_stop", nullptr, {}, 9000}, {"global_batch_size", 8},
      {"opt_name", "sgd"}, {"opt_base_learning_rate", 0.001}, {"opt_learning_rate_warmup_epochs", 4},
      {"opt_learning_rate_warmup_factor", 0.125}, {"opt_learning_rate_decay_boundary_epochs", json{32, 64}},
      {"opt_learning_rate_decay_factor", json{0.25, 0.125}}, {"dropout", 0.5}, {"opt_weight_decay", 0},
      {"train_samples", 524288}, {"eval_samples", 65536}, {"init_stop", nullptr, {}, 60000},
      {"run_start", nullptr, {}, 60001},
      {"epoch_start", nullptr, {{"epoch_num", 1}}}, {"epoch_stop", nullptr, {{"epoch_num", 1}}},
      {"eval_start", nullptr, {{"epoch_num", 1}}}, {"eval_error", 0.31, {{"epoch_num", 1}}},
      {"eval_stop", nullptr, {{"epoch_num", 1}}},
      {"epoch_start", nullptr, {{"epoch_num", 2}}}, {"epoch_stop", nullptr, {{"epoch_num", 2}}},
      {"eval_start", nullptr, {{"epoch_num", 2}}}, {"eval_error", 0.12, {{"epoch_num", 2}}},
      {"eval_stop", nullptr, {{"epoch_num", 2}}},
      {"run_stop", nullptr, {{"status", "success"}}, 600001},
  };
}

}  // namespace ergobench::mllog_fixture
