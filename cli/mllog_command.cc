#include "cli/mllog_command.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "api/analysis/mlperf_score.h"
#include "api/contract/mlperf_benchmarks.h"
#include "api/contract/mlperf_log_rules.h"
#include "api/v1alpha1/load.h"
#include "base/units.h"
#include "cli/exit_codes.h"

namespace ergobench {
namespace {

// A run's log is kilobytes (a 90-epoch ResNet's, about 100 KB); past this, a file is not one.
constexpr size_t kMllogFileLimit = 64 << 20;

nlohmann::json FindingsJson(const std::string& file, const MlperfLogCheck& check) {
  nlohmann::json findings = nlohmann::json::array();
  for (const MlperfLogFinding& f : check.findings) {
    findings.push_back({{"line", f.line}, {"rules", f.rules}, {"key", f.key}, {"message", f.message},
                        {"warning", f.warning}});
  }
  return {{"file", file}, {"ruleset", check.ruleset}, {"division", check.division},
          {"benchmark", check.benchmark}, {"passed", check.Passed()}, {"findings", findings}};
}

void PrintText(const std::string& file, const MlperfLogCheck& check) {
  for (const MlperfLogFinding& f : check.findings) {
    std::cout << file << ":" << (f.line > 0 ? std::to_string(f.line) + ":" : "") << " " << (f.warning ? "warning" : "error")
              << " [" << f.rules << "]" << (f.key.empty() ? "" : " " + f.key) << ": " << f.message << "\n";
  }
  const bool hpc = check.ruleset.rfind("hpc", 0) == 0;
  std::cout << file << ": " << (check.Passed() ? "passes" : "fails") << " MLPerf "
            << (hpc ? "HPC " : "Training ") << check.ruleset.substr(check.ruleset.find(' ') + 1) << "'s rules"
            << (check.division.empty() ? "" : " (" + check.division + (check.benchmark.empty() ? "" : ", " + check.benchmark) + ")")
            << "\n";
}

// One run's log as the summarizer scores it: converged, or why not.
struct ScoredLog {
  std::string file;
  MlperfLogCheck check;
  MlperfRun run;
  std::string why_not;  // empty when it converged
};

ScoredLog ScoreLog(const std::string& file, const std::string& text) {
  ScoredLog scored{file, CheckMlperfLog(text), {}, ""};
  const MlperfLogCheck& c = scored.check;
  const bool passes = MlperfRequiredRuns(c.benchmark) > 0 ? c.Passed() : c.PassedExcept(c.division + "_common");
  if (!passes) {
    scored.why_not = "fails MLPerf's log rules (ergobench mllog check " + file + ")";
  } else if (!c.run_start_ms || !c.run_stop_ms) {
    scored.why_not = "no run_start or run_stop";
  } else if (c.run_stop_status != "success") {
    scored.why_not = "run_stop's status is " + (c.run_stop_status.empty() ? "absent" : c.run_stop_status);
  } else {
    scored.run.minutes = (*c.run_stop_ms - *c.run_start_ms) / 60000;
    scored.run.epochs = c.last_eval_epoch;
  }
  return scored;
}

const ScoredLog* FirstNamed(const std::vector<ScoredLog>& logs) {
  for (const ScoredLog& l : logs) {
    if (!l.check.benchmark.empty()) return &l;
  }
  return nullptr;
}

nlohmann::json ScoreJson(const std::vector<ScoredLog>& logs, const MlperfScore& score) {
  nlohmann::json runs = nlohmann::json::array();
  for (const ScoredLog& l : logs) {
    nlohmann::json run = {{"file", l.file}, {"converged", l.why_not.empty()}};
    if (l.check.seed) run["seed"] = *l.check.seed;
    if (l.run.minutes) run["minutes"] = *l.run.minutes;
    if (l.run.epochs) run["epochs"] = *l.run.epochs;
    if (!l.why_not.empty()) run["reason"] = l.why_not;
    runs.push_back(run);
  }
  return {{"runs", runs}, {"score", MlperfScoreFields().Encode(score)}};
}

void PrintScore(const std::vector<ScoredLog>& logs, const MlperfScore& score) {
  for (const ScoredLog& l : logs) {
    std::cout << l.file << ": " << (l.run.minutes ? FormatFixed(*l.run.minutes, 3) + " min" : "did not converge: " + l.why_not)
              << (l.check.seed ? ", seed " + std::to_string(*l.check.seed) : "")
              << (l.run.epochs ? ", epoch " + FormatSignificant(*l.run.epochs, 6) : "") << "\n";
  }
  std::cout << score.benchmark << ": ";
  if (score.time_to_train_minutes) {
    std::cout << FormatFixed(*score.time_to_train_minutes, 3) << " min to train, the olympic mean of " << score.runs
              << " runs (" << score.converged << " converged)";
    if (score.epochs_to_converge) std::cout << ", " << FormatSignificant(*score.epochs_to_converge, 6) << " epochs to converge";
  } else {
    std::cout << "no score";
  }
  std::cout << (score.note.empty() ? "" : "; " + score.note) << "\n";
}

}  // namespace

int MllogScoreCommand(const std::vector<std::string>& files, const std::string& output) {
  std::vector<ScoredLog> logs;
  std::vector<MlperfRun> runs;
  for (const std::string& file : files) {
    StatusOr<std::string> text = ReadFile(file, kMllogFileLimit);
    if (!text.ok()) {
      std::cerr << "ergobench mllog score: " << text.status().message() << "\n";
      return kExitBadInput;
    }
    logs.push_back(ScoreLog(file, *text));
    runs.push_back(logs.back().run);
    // A log that names no benchmark is a run that did not converge, of whichever the others are.
    const ScoredLog* named = FirstNamed(logs);
    const std::string& benchmark = logs.back().check.benchmark;
    if (!benchmark.empty() && benchmark != named->check.benchmark) {
      std::cerr << "ergobench mllog score: " << file << " is a log of '" << benchmark << "', " << named->file << " of '"
                << named->check.benchmark << "': score one benchmark at a time\n";
      return kExitBadInput;
    }
  }
  const ScoredLog* named = FirstNamed(logs);
  const MlperfScore score = ScoreMlperfRuns(named != nullptr ? named->check.benchmark : "", runs);
  if (output == "json") {
    std::cout << ScoreJson(logs, score).dump(2) << "\n";
  } else {
    PrintScore(logs, score);
  }
  return score.time_to_train_minutes ? kExitOk : kExitFailed;
}

int MllogCheckCommand(const std::vector<std::string>& files, const std::string& output) {
  bool failed = false;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& file : files) {
    StatusOr<std::string> text = ReadFile(file, kMllogFileLimit);
    if (!text.ok()) {
      std::cerr << "ergobench mllog check: " << text.status().message() << "\n";
      return kExitBadInput;
    }
    const MlperfLogCheck check = CheckMlperfLog(*text);
    failed = failed || !check.Passed();
    if (output == "json") {
      all.push_back(FindingsJson(file, check));
    } else {
      PrintText(file, check);
    }
  }
  if (output == "json") std::cout << all.dump(2) << "\n";
  return failed ? kExitFailed : kExitOk;
}

}  // namespace ergobench
