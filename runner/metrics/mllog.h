// MlLog writes MLPerf-style ":::MLLOG {...}" lines, one file per rank, with the mlcommons
// logging keys (init_start, run_start, epoch_start, eval_accuracy, run_stop, ...), so that
// a run can be checked with the MLPerf tooling and compared with MLPerf submissions.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace ergobench {

class MlLog {
 public:
  using WallClock = std::function<int64_t()>;  // milliseconds since the epoch

  // Told of every event (type INTERVAL_START | INTERVAL_END | POINT_IN_TIME, key) as it is
  // logged, so that others can mark the same moments (the energy of the timed region).
  using Observer = std::function<void(const std::string& event_type, const std::string& key)>;

  // An empty path writes nothing.
  explicit MlLog(const std::string& path, WallClock clock = {});

  void SetObserver(Observer observer) { observer_ = std::move(observer); }

  // Each returns the event's time_ms, so that a figure can carry the moment the log says.
  int64_t Point(const std::string& key, const nlohmann::json& value, nlohmann::json metadata = nlohmann::json::object());
  int64_t Start(const std::string& key, nlohmann::json metadata = nlohmann::json::object());
  int64_t Stop(const std::string& key, nlohmann::json metadata = nlohmann::json::object());

  // The line for one event, without writing it.
  static std::string Line(int64_t time_ms, const std::string& event_type, const std::string& key,
                          const nlohmann::json& value, const nlohmann::json& metadata);

 private:
  int64_t Write(const std::string& event_type, const std::string& key, const nlohmann::json& value,
             const nlohmann::json& metadata);

  std::ofstream out_;
  WallClock clock_;
  Observer observer_;
};

}  // namespace ergobench
