#include "cli/mllog_command.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "api/contract/mlperf_log_rules.h"
#include "api/v1alpha1/load.h"
#include "cli/exit_codes.h"

namespace ergobench {
namespace {

nlohmann::json FindingsJson(const std::string& file, const MlperfLogCheck& check) {
  nlohmann::json findings = nlohmann::json::array();
  for (const MlperfLogFinding& f : check.findings) {
    findings.push_back({{"line", f.line}, {"rules", f.rules}, {"key", f.key}, {"message", f.message},
                        {"warning", f.warning}});
  }
  return {{"file", file}, {"ruleset", "training 4.0.0"}, {"division", check.division},
          {"benchmark", check.benchmark}, {"passed", check.Passed()}, {"findings", findings}};
}

void PrintText(const std::string& file, const MlperfLogCheck& check) {
  for (const MlperfLogFinding& f : check.findings) {
    std::cout << file << ":" << (f.line > 0 ? std::to_string(f.line) + ":" : "") << " " << (f.warning ? "warning" : "error")
              << " [" << f.rules << "]" << (f.key.empty() ? "" : " " + f.key) << ": " << f.message << "\n";
  }
  std::cout << file << ": " << (check.Passed() ? "passes" : "fails") << " MLPerf Training 4.0.0's rules"
            << (check.division.empty() ? "" : " (" + check.division + (check.benchmark.empty() ? "" : ", " + check.benchmark) + ")")
            << "\n";
}

}  // namespace

int MllogCheckCommand(const std::vector<std::string>& files, const std::string& output) {
  bool failed = false;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& file : files) {
    StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) {
      std::cerr << "ergobench mllog check: " << text.status().message() << "\n";
      return kExitBadInput;
    }
    const MlperfLogCheck check = CheckMlperfTrainingLog(*text);
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
