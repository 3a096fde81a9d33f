#include "runner/metrics/mllog.h"

#include <filesystem>

namespace ergobench {

MlLog::MlLog(const std::string& path, WallClock clock) : clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
  if (path.empty()) return;
  std::error_code ignored;  // an open that then fails leaves the log off, as before
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  out_.open(path, std::ios::app);
}

std::string MlLog::Line(int64_t time_ms, const std::string& event_type, const std::string& key,
                        const nlohmann::json& value, const nlohmann::json& metadata) {
  nlohmann::json event = {{"namespace", ""}, {"time_ms", time_ms}, {"event_type", event_type},
                          {"key", key},      {"value", value},     {"metadata", metadata}};
  return ":::MLLOG " + event.dump();
}

int64_t MlLog::Write(const std::string& event_type, const std::string& key, const nlohmann::json& value,
                     const nlohmann::json& metadata) {
  if (observer_) observer_(event_type, key);
  const int64_t time_ms = clock_();
  if (out_.is_open()) out_ << Line(time_ms, event_type, key, value, metadata) << std::endl;
  return time_ms;
}

int64_t MlLog::Point(const std::string& key, const nlohmann::json& value, nlohmann::json metadata) {
  return Write("POINT_IN_TIME", key, value, metadata);
}
int64_t MlLog::Start(const std::string& key, nlohmann::json metadata) {
  return Write("INTERVAL_START", key, nullptr, metadata);
}
int64_t MlLog::Stop(const std::string& key, nlohmann::json metadata) {
  return Write("INTERVAL_END", key, nullptr, metadata);
}

}  // namespace ergobench
