#include "api/contract/mlperf_log_rules.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

using nlohmann::json;

constexpr std::string_view kToken = ":::MLLOG ";

struct Event {
  int64_t line = 0;
  double time_ms = 0;
  std::string key;
  json value;
  json metadata;
};

enum class Required { kAny, kExactlyOne, kAtLeastOne };

// One KEY record of a rule file: how often the key must appear, what each of its lines must
// hold (a message when it does not), and what at least one of them must hold.
struct KeyRule {
  std::string key;
  Required required = Required::kAny;
  std::vector<std::string> or_keys;  // AT_LEAST_ONE_OR: this key or one of these
  std::function<std::string(const Event&)> check;
  std::function<bool(const Event&)> at_least_one;
  std::string at_least_one_text;
};

struct RuleFile {
  std::string name;
  std::vector<KeyRule> keys;
};

bool Has(const json& metadata, const char* name) { return metadata.is_object() && metadata.contains(name); }
bool IsNumber(const json& v) { return v.is_number(); }
double Number(const json& v) { return v.get<double>(); }
// The checker's is_integer: within 1e-5 of a whole number.
bool IsInteger(double v) { return std::isfinite(v) && std::fabs(std::round(v) - v) < 0.00001; }
bool IsOneOf(const json& v, std::initializer_list<const char*> names) {
  return v.is_string() && std::any_of(names.begin(), names.end(), [&v](const char* n) { return v.get_ref<const std::string&>() == n; });
}
std::string Unless(bool holds, const std::string& message) { return holds ? "" : message; }

KeyRule Exactly(std::string key, std::function<std::string(const Event&)> check = {}) {
  return {std::move(key), Required::kExactlyOne, {}, std::move(check), {}, ""};
}
KeyRule AtLeastOne(std::string key, std::function<std::string(const Event&)> check = {}) {
  return {std::move(key), Required::kAtLeastOne, {}, std::move(check), {}, ""};
}
// A key a rule file names without requiring it: checked where it appears.
KeyRule Optional(std::string key, std::function<std::string(const Event&)> check) {
  return {std::move(key), Required::kAny, {}, std::move(check), {}, ""};
}
KeyRule OneOf(std::string key, std::vector<std::string> others, std::function<std::string(const Event&)> check) {
  return {std::move(key), Required::kAny, std::move(others), std::move(check), {}, ""};
}

std::string NotEmpty(const Event& e) { return Unless(e.value != json(""), "value must not be empty"); }
std::string EpochOrStep(const Event& e) {
  return Unless(Has(e.metadata, "epoch_num") || Has(e.metadata, "step_num"), "metadata needs epoch_num or step_num");
}
std::string EpochNum(const Event& e) { return Unless(Has(e.metadata, "epoch_num"), "metadata needs epoch_num"); }
std::string Positive(const Event& e) { return Unless(IsNumber(e.value) && Number(e.value) > 0, "value must be above 0"); }

enum class Usage { kTraining, kHpc };

// What common.yaml's checks remember from line to line.
struct CommonState {
  bool init_started = false, init_stopped = false, run_started = false, staging_started = false;
  double first_init_start = 9e99;
  double compile_minutes = 30;
};

// common.yaml's blocks, epochs and evaluations: HPC's count epochs only, Training's epochs or steps.
std::vector<KeyRule> EpochRules(std::shared_ptr<CommonState> s, bool hpc) {
  return {
      OneOf("block_start", {"epoch_start"},
            [s, hpc](const Event& e) {
              const json& m = e.metadata;
              if (!s->run_started) return std::string("block_start before run_start");
              if (hpc && !Has(m, "epoch_count")) return std::string("metadata needs epoch_count");
              if (!Has(m, "epoch_count") && !Has(m, "step_num")) return std::string("metadata needs epoch_count or step_num");
              if (Has(m, "epoch_count") && !Has(m, "first_epoch_num")) return std::string("metadata needs first_epoch_num");
              if (Has(m, "epoch_count") && !(IsNumber(m["epoch_count"]) && Number(m["epoch_count"]) > 0)) {
                return std::string("epoch_count must be above 0");
              }
              return Unless(!Has(m, "step_num") || (IsNumber(m["step_num"]) && Number(m["step_num"]) >= 0),
                            "step_num must not be negative");
            }),
      OneOf("block_stop", {"epoch_stop"},
            [hpc](const Event& e) {
              return Unless(Has(e.metadata, "first_epoch_num") || (!hpc && Has(e.metadata, "step_num")),
                            hpc ? "metadata needs first_epoch_num" : "metadata needs first_epoch_num or step_num");
            }),
      OneOf("epoch_start", {"block_start"}, EpochNum),
      OneOf("epoch_stop", {"block_stop"}, EpochNum),
      OneOf("eval_start", {"block_start"}, hpc ? EpochNum : EpochOrStep),
      OneOf("eval_stop", {"block_stop"}, hpc ? EpochNum : EpochOrStep),
  };
}

// common.yaml: the submission, the order of init and run, blocks, epochs and evaluations.
// MLPerf HPC 3.0.0's differs from Training 4.0.0's in four places: initialisation has 30
// minutes in either division (Training: 30 closed, 240 open), blocks and evaluations count
// epochs only (Training: or steps), staging is optional but its stop follows its start, and
// eval_accuracy is not required (each HPC benchmark names its own metric).
RuleFile CommonRules(Usage usage) {
  auto s = std::make_shared<CommonState>();
  const bool hpc = usage == Usage::kHpc;
  RuleFile rules{"common", {}};
  rules.keys = {
      Exactly("submission_org", NotEmpty),
      Exactly("submission_platform", NotEmpty),
      Exactly("submission_division",
              [s, hpc](const Event& e) {
                if (!hpc && IsOneOf(e.value, {"open"})) s->compile_minutes = 240;
                return Unless(IsOneOf(e.value, {"closed", "open"}), "value must be closed or open");
              }),
      Exactly("submission_status",
              [](const Event& e) {
                return Unless(IsOneOf(e.value, {"cloud", "onprem", "preview", "research"}),
                              "value must be cloud, onprem, preview or research");
              }),
      AtLeastOne("cache_clear"),
      AtLeastOne("init_start",
                 [s](const Event& e) {
                   const bool ok = !s->init_stopped && !s->run_started;
                   s->init_started = true;
                   s->first_init_start = std::min(s->first_init_start, e.time_ms);
                   return Unless(ok, "init_start after init_stop or run_start");
                 }),
      Exactly("init_stop",
              [s](const Event& e) {
                std::string why = !s->init_started                                   ? "init_stop before init_start"
                                  : s->run_started                                   ? "init_stop after run_start"
                                  : e.time_ms - s->first_init_start >= s->compile_minutes * 60e3
                                      ? "initialisation took longer than the division allows (" +
                                            std::to_string(static_cast<int>(s->compile_minutes)) + " min)"
                                      : "";
                s->init_stopped = true;
                return why;
              }),
      Exactly("run_start",
              [s](const Event&) {
                const bool ok = s->init_stopped;
                s->run_started = true;
                return Unless(ok, "run_start before init_stop");
              }),
      Exactly("run_stop",
              [s](const Event& e) {
                if (!s->run_started) return std::string("run_stop before run_start");
                return Unless(Has(e.metadata, "status"), "metadata needs status");
              }),
  };
  for (KeyRule& rule : EpochRules(s, hpc)) rules.keys.push_back(std::move(rule));
  if (!hpc) rules.keys.push_back(AtLeastOne("eval_accuracy", EpochOrStep));
  rules.keys.push_back(Exactly("train_samples", NotEmpty));
  rules.keys.push_back(Exactly("eval_samples", NotEmpty));
  if (!hpc) return rules;
  rules.keys.push_back(Optional("staging_start", [s](const Event&) { return s->staging_started = true, std::string(); }));
  rules.keys.push_back(
      Optional("staging_stop", [s](const Event&) { return Unless(s->staging_started, "staging_stop before staging_start"); }));
  return rules;
}

// {closed,open}_common.yaml: the benchmark's name among the usage's; closed Training needs
// gradient_accumulation_steps, closed HPC the system's scale (and checks accumulation if given).
RuleFile DivisionRules(Usage usage, const std::string& division) {
  const bool hpc = usage == Usage::kHpc;
  RuleFile rules{division + "_common", {Exactly("submission_benchmark", [hpc](const Event& e) {
                   const auto& names = hpc ? MlperfHpcBenchmarks() : MlperfTrainingBenchmarks();
                   return Unless(e.value.is_string() && std::count(names.begin(), names.end(), e.value.get<std::string>()),
                                 hpc ? "value is not an MLPerf HPC 3.0.0 benchmark"
                                     : "value is not an MLPerf Training 4.0.0 benchmark");
                 })}};
  if (division != "closed") return rules;
  if (!hpc) {
    rules.keys.push_back(Exactly("gradient_accumulation_steps", Positive));
    return rules;
  }
  const auto not_negative = [](const Event& e) { return Unless(IsNumber(e.value) && Number(e.value) >= 0, "value must not be negative"); };
  rules.keys.push_back(Optional("gradient_accumulation_steps", Positive));
  rules.keys.push_back(Optional("gradient_accumulation_frequency", Positive));
  rules.keys.push_back(Exactly("number_of_nodes", Positive));
  rules.keys.push_back(Exactly("accelerators_per_node", not_negative));
  return rules;
}

// {closed,open}_cosmoflow.yaml: at least one eval_error (with epoch_num) at the target, 0.124 or
// below and above 0; closed, the reference's SGD keys too.
RuleFile CosmoflowRules(const std::string& division) {
  KeyRule error = AtLeastOne("eval_error", EpochNum);
  error.at_least_one = [](const Event& e) { return IsNumber(e.value) && Number(e.value) <= 0.124 && Number(e.value) > 0; };
  error.at_least_one_text = "no eval_error reached 0.124 (and above 0)";
  if (division == "open") return {"open_cosmoflow", {error}};
  const auto at_least = [](double floor) {
    return [floor](const Event& e) { return Unless(IsNumber(e.value) && Number(e.value) >= floor, "value must be at least " + json(floor).dump()); };
  };
  return {"closed_cosmoflow",
          {Exactly("global_batch_size", Positive),
           Exactly("opt_name", [](const Event& e) { return Unless(IsOneOf(e.value, {"sgd", "SGD"}), "value must be sgd"); }),
           Exactly("opt_base_learning_rate", at_least(0)), Exactly("opt_learning_rate_warmup_epochs", at_least(0)),
           Exactly("opt_learning_rate_warmup_factor", at_least(0)), Exactly("opt_learning_rate_decay_boundary_epochs"),
           Exactly("opt_learning_rate_decay_factor"),
           Optional("dropout",
                    [](const Event& e) {
                      return Unless(IsNumber(e.value) && Number(e.value) >= 0 && Number(e.value) < 1, "value must be in [0, 1)");
                    }),
           Optional("opt_weight_decay", at_least(0)),
           error}};
}

KeyRule ResnetAccuracy(bool closed) {
  KeyRule rule = AtLeastOne("eval_accuracy", EpochNum);
  if (closed) {
    rule.at_least_one = [](const Event& e) { return IsNumber(e.value) && Number(e.value) >= 0.7590 && Number(e.value) < 1.0; };
    rule.at_least_one_text = "no eval_accuracy reached 0.759 (and below 1)";
  } else {
    rule.at_least_one = [](const Event& e) { return IsNumber(e.value) && Number(e.value) < 1.0; };
    rule.at_least_one_text = "no eval_accuracy below 1";
  }
  return rule;
}

RuleFile ResnetRules(const std::string& division) {
  if (division == "open") return {"open_resnet", {ResnetAccuracy(false)}};
  return {"closed_resnet",
          {Exactly("global_batch_size", Positive),
           Exactly("opt_name", [](const Event& e) { return Unless(IsOneOf(e.value, {"sgd", "lars"}), "value must be sgd or lars"); }),
           ResnetAccuracy(true)}};
}

// Optimizer keys of closed ResNet.
RuleFile ResnetOptimizerRules(const std::string& optimizer) {
  const auto equals = [](double expected) {
    return [expected](const Event& e) { return Unless(IsNumber(e.value) && Number(e.value) == expected, "value must be " + json(expected).dump()); };
  };
  const auto power_of_two_of = [](double unit) {
    return [unit](const Event& e) {
      return Unless(IsNumber(e.value) && Number(e.value) > 0 && IsInteger(std::log2(Number(e.value) / unit)),
                    "value must be " + json(unit).dump() + " times a power of 2");
    };
  };
  if (optimizer == "sgd") {
    return {"closed_resnet_sgd",
            {Exactly("sgd_opt_base_learning_rate",
                     [](const Event& e) {
                       return Unless(IsNumber(e.value) && IsInteger(Number(e.value) / 0.001), "value must be a multiple of 0.001");
                     }),
             Exactly("sgd_opt_end_learning_rate", equals(0.0001)), Exactly("sgd_opt_learning_rate_decay_poly_power"),
             Exactly("sgd_opt_learning_rate_decay_steps"), Exactly("sgd_opt_weight_decay", power_of_two_of(0.0001)),
             Exactly("sgd_opt_momentum"), Exactly("model_bn_span"), Exactly("opt_learning_rate_warmup_epochs")}};
  }
  return {"closed_resnet_lars",
          {Exactly("lars_opt_base_learning_rate"), Exactly("lars_opt_end_learning_rate", equals(0.0001)),
           Exactly("lars_opt_learning_rate_decay_poly_power", equals(2)), Exactly("lars_opt_learning_rate_decay_steps"),
           Exactly("lars_epsilon", equals(0.0)), Exactly("lars_opt_learning_rate_warmup_epochs"),
           Exactly("lars_opt_momentum"), Exactly("lars_opt_weight_decay", power_of_two_of(0.0001))}};
}

std::string Describe(Required required) { return required == Required::kExactlyOne ? "EXACTLY_ONE" : "AT_LEAST_ONE"; }

// One rule file over the whole log, as the checker runs a config.
void Apply(const RuleFile& rules, const std::vector<Event>& events, std::vector<MlperfLogFinding>* findings) {
  std::map<std::string, const KeyRule*> by_key;
  for (const KeyRule& rule : rules.keys) by_key[rule.key] = &rule;
  std::map<std::string, std::vector<json>> values;
  std::map<std::string, int64_t> held_once;  // ATLEAST_ONE_CHECK: lines that held it, by key seen
  std::set<std::string> submitted;
  for (const Event& e : events) {
    const auto found = by_key.find(e.key);
    if (found == by_key.end()) continue;  // a key these rules do not name is allowed
    const KeyRule& rule = *found->second;
    values[e.key].push_back(e.value);
    const bool submission = e.key.rfind("submission_", 0) == 0;
    if (rule.check && !(submission && submitted.count(e.key))) {
      if (std::string why = rule.check(e); !why.empty()) findings->push_back({e.line, rules.name, e.key, why, false});
    }
    if (rule.at_least_one) held_once[e.key] += rule.at_least_one(e) ? 1 : 0;
    if (submission) submitted.insert(e.key);
  }
  for (const KeyRule& rule : rules.keys) {
    const auto held = held_once.find(rule.key);
    if (held != held_once.end() && held->second == 0) findings->push_back({0, rules.name, rule.key, rule.at_least_one_text, false});
    const std::vector<json>& seen = values[rule.key];
    const std::string count = "Required " + Describe(rule.required) + " occurrence of '" + rule.key + "' but found " +
                              std::to_string(seen.size());
    if (rule.required == Required::kExactlyOne && seen.size() != 1) {
      const bool same = !seen.empty() && std::all_of(seen.begin(), seen.end(), [&](const json& v) { return v == seen[0]; });
      findings->push_back({0, rules.name, rule.key, count, same});
    }
    if (rule.required == Required::kAtLeastOne && seen.empty()) findings->push_back({0, rules.name, rule.key, count, false});
    if (!rule.or_keys.empty() && seen.empty() &&
        std::none_of(rule.or_keys.begin(), rule.or_keys.end(), [&](const std::string& k) { return !values[k].empty(); })) {
      findings->push_back({0, rules.name, rule.key, "Required AT_LEAST_ONE occurrence of '" + rule.key + "' or '" +
                                                        rule.or_keys.front() + "'", false});
    }
  }
}

// The log's lines as the checker's parser reads them: from the token on, JSON with time_ms, key,
// value and metadata. A line that does not parse is a warning, as there.
std::vector<Event> ParseEvents(std::string_view log, std::vector<MlperfLogFinding>* findings) {
  std::vector<Event> events;
  int64_t number = 0;
  for (size_t start = 0; start < log.size();) {
    size_t end = log.find('\n', start);
    if (end == std::string_view::npos) end = log.size();
    std::string_view line = log.substr(start, end - start);
    start = end + 1;
    ++number;
    const size_t token = line.find(kToken);
    if (token == std::string_view::npos) continue;
    const json parsed = json::parse(line.substr(token + kToken.size()), nullptr, false);
    const bool complete = parsed.is_object() && parsed.contains("key") && parsed["key"].is_string() &&
                          parsed.contains("time_ms") && parsed["time_ms"].is_number() && parsed.contains("value") &&
                          parsed.contains("metadata");
    if (!complete) {
      findings->push_back({number, "parser", "", "not an MLLOG record with time_ms, key, value and metadata", true});
      continue;
    }
    events.push_back({number, parsed["time_ms"].get<double>(), parsed["key"].get<std::string>(), parsed["value"],
                      parsed["metadata"]});
  }
  return events;
}

// The first value of `key`, as a string ("" when absent or not a string).
std::string FirstString(const std::vector<Event>& events, const std::string& key) {
  for (const Event& e : events) {
    if (e.key == key) return e.value.is_string() ? e.value.get<std::string>() : "";
  }
  return "";
}

// The figures the result summarizer reads (MlperfLogCheck's run_* fields), from the events.
void ReadRunFigures(const std::vector<Event>& events, MlperfLogCheck* check) {
  for (const Event& e : events) {
    if (e.key == "run_start" && !check->run_start_ms) check->run_start_ms = e.time_ms;
    if (e.key == "seed" && !check->seed && e.value.is_number_integer()) check->seed = e.value.get<int64_t>();
    if ((e.key == "eval_accuracy" || e.key == "eval_error") && !check->run_stop_ms && Has(e.metadata, "epoch_num") &&
        IsNumber(e.metadata["epoch_num"])) {
      check->last_eval_epoch = Number(e.metadata["epoch_num"]);
    }
    if (e.key == "run_stop" && !check->run_stop_ms) {
      check->run_stop_ms = e.time_ms;
      if (Has(e.metadata, "status") && e.metadata["status"].is_string()) check->run_stop_status = e.metadata["status"];
    }
  }
}

}  // namespace

const std::vector<std::string>& MlperfTrainingBenchmarks() {
  static const std::vector<std::string> names = {"resnet", "ssd",  "stable_diffusion", "maskrcnn", "gpt3",
                                                 "dlrm_dcnv2", "bert", "rnnt", "unet3d", "gnn"};
  return names;
}

bool MlperfLogCheck::Passed() const {
  return std::all_of(findings.begin(), findings.end(), [](const MlperfLogFinding& f) { return f.warning; });
}

bool MlperfLogCheck::PassedExcept(const std::string& rules) const {
  return std::all_of(findings.begin(), findings.end(),
                     [&rules](const MlperfLogFinding& f) { return f.warning || f.rules == rules; });
}

const std::vector<std::string>& MlperfHpcBenchmarks() {
  static const std::vector<std::string> names = {"deepcam", "cosmoflow", "oc20", "openfold"};
  return names;
}

MlperfLogCheck CheckMlperfLog(std::string_view log) {
  MlperfLogCheck check;
  const std::vector<Event> events = ParseEvents(log, &check.findings);
  ReadRunFigures(events, &check);
  check.benchmark = FirstString(events, "submission_benchmark");
  const auto& hpc_names = MlperfHpcBenchmarks();
  const Usage usage = std::count(hpc_names.begin(), hpc_names.end(), check.benchmark) ? Usage::kHpc : Usage::kTraining;
  check.ruleset = usage == Usage::kHpc ? "hpc 3.0.0" : "training 4.0.0";
  if (events.empty()) check.findings.push_back({0, "common", "", "No log lines detected", false});
  Apply(CommonRules(usage), events, &check.findings);
  check.division = FirstString(events, "submission_division");
  if (check.division != "closed" && check.division != "open") {
    check.benchmark.clear();  // the checker reads it only from the division's rules
    return check;
  }
  Apply(DivisionRules(usage, check.division), events, &check.findings);
  if (check.benchmark == "cosmoflow") {
    Apply(CosmoflowRules(check.division), events, &check.findings);
    return check;
  }
  if (check.benchmark != "resnet") {
    // The checker looks for the benchmark's own rule file, and finds none.
    check.findings.push_back({0, check.division + "_common", "submission_benchmark",
                              "no rules for benchmark '" + check.benchmark + "'", false});
    return check;
  }
  Apply(ResnetRules(check.division), events, &check.findings);
  const std::string optimizer = FirstString(events, "opt_name");
  if (check.division == "closed" && (optimizer == "sgd" || optimizer == "lars")) {
    Apply(ResnetOptimizerRules(optimizer), events, &check.findings);
  }
  return check;
}

}  // namespace ergobench
