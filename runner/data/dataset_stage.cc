#include "runner/data/dataset_stage.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

StageOutcome Staged(const std::string& data, const std::string& into, double seconds) {
  int64_t bytes = 0, files = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(data, error); it != fs::recursive_directory_iterator(); ++it) {
    if (!it->is_regular_file()) continue;
    ++files;
    bytes += static_cast<int64_t>(it->file_size());
  }
  const std::string path = fs::relative(data, fs::canonical(into, error)).string();
  return {0, nlohmann::json{{"path", path}, {"bytes", bytes}, {"files", files}, {"seconds", seconds}}.dump()};
}

}  // namespace

StageOutcome StageDataset(const StageOptions& options, const FetchLimits& limits) {
  if (!options.verdict_file.empty()) {
    std::ifstream kept(options.verdict_file);
    std::stringstream verdict;
    if (kept && verdict << kept.rdbuf()) return {kStagingExitPermanent, verdict.str()};
  }
  const auto start = std::chrono::steady_clock::now();
  StatusOr<std::string> data = FetchDataset(options.url, options.sha256, options.into, limits);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  if (data.ok()) return Staged(*data, options.into, seconds.count());
  if (data.status().code() != StatusCode::kInvalidArgument) return {kStagingExitRetry, data.status().message()};
  if (!options.verdict_file.empty()) {
    std::error_code ignored;  // without the verdict the next try only fetches again
    fs::create_directories(fs::path(options.verdict_file).parent_path(), ignored);
    std::ofstream(options.verdict_file) << data.status().message();
  }
  return {kStagingExitPermanent, data.status().message()};
}

}  // namespace ergobench
