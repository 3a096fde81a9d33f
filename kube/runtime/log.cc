#include "kube/runtime/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

#include <nlohmann/json.hpp>

#include "base/rfc3339.h"

namespace ergobench::runtime {
namespace {

std::atomic<bool> json_format{true};
std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};
std::mutex output_mutex;

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
  }
  return "info";
}

}  // namespace

void SetLogFormat(bool as_json) { json_format = as_json; }
void SetMinLogLevel(LogLevel level) { min_level = static_cast<int>(level); }

void Log(LogLevel level, const std::string& message, std::initializer_list<LogField> fields) {
  if (static_cast<int>(level) < min_level.load()) return;
  const std::string ts = Rfc3339Micro(std::chrono::system_clock::now());
  // Fields carry text from outside (pod logs, specs): invalid UTF-8 is written as U+FFFD
  // rather than thrown.
  auto encode = [](const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::string line;
  if (json_format) {
    nlohmann::json object = {{"ts", ts}, {"level", LevelName(level)}, {"msg", message}};
    for (const auto& [key, value] : fields) object[key] = value;
    line = encode(object);
  } else {
    line = ts + " " + LevelName(level) + " " + message;
    for (const auto& [key, value] : fields) line += " " + key + "=" + encode(value);
  }
  std::lock_guard<std::mutex> lock(output_mutex);
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace ergobench::runtime
