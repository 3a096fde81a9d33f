// Watch-stream framing. The API server sends one JSON object per line
// ({"type":"ADDED","object":{...}}), but the transport hands over chunks that split and join
// lines anywhere. LineSplitter reassembles lines; ParseWatchEvent reads one.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace ergobench::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  nlohmann::json object;  // the object; for kError, the Status object
};

class LineSplitter {
 public:
  // A line longer than this is an error rather than unbounded memory (the API server caps
  // objects at about 1.5 MiB; bookmarks and events are far smaller).
  explicit LineSplitter(size_t max_line_bytes = 16 << 20) : max_line_bytes_(max_line_bytes) {}

  // Calls on_line for each complete, non-empty line (without the newline; a trailing \r is
  // dropped). Stops and returns on_line's error, or an error for an over-long line.
  Status Feed(std::string_view chunk, const std::function<Status(std::string_view line)>& on_line);

  // Bytes of an unfinished line: non-zero at the end of a stream means it was cut short.
  size_t pending() const { return partial_.size(); }

 private:
  size_t max_line_bytes_;
  std::string partial_;
};

StatusOr<WatchEvent> ParseWatchEvent(std::string_view line);

// The resourceVersion an event carries (bookmarks carry nothing else).
std::string EventResourceVersion(const WatchEvent& event);

}  // namespace ergobench::kube
