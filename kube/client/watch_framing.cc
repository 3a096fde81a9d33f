#include "kube/client/watch_framing.h"

namespace ergobench::kube {

Status LineSplitter::Feed(std::string_view chunk, const std::function<Status(std::string_view)>& on_line) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (partial_.size() + piece.size() > max_line_bytes_) {
      partial_.clear();
      return Status::Internal("watch stream line longer than " + std::to_string(max_line_bytes_) + " bytes");
    }
    if (newline == std::string_view::npos) {
      partial_.append(piece);
      return Status::Ok();
    }
    chunk.remove_prefix(newline + 1);
    std::string_view line = piece;
    if (!partial_.empty()) {
      partial_.append(piece);
      line = partial_;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    Status status = line.empty() ? Status::Ok() : on_line(line);
    partial_.clear();
    RETURN_IF_ERROR(status);
  }
  return Status::Ok();
}

StatusOr<WatchEvent> ParseWatchEvent(std::string_view line) {
  const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object() || !parsed.contains("type") || !parsed["type"].is_string() || !parsed.contains("object") ||
      !parsed["object"].is_object()) {
    return Status::Internal("malformed watch event: " + std::string(line.substr(0, 200)));
  }
  const std::string type = parsed["type"];
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return Status::Internal("unknown watch event type \"" + type + "\"");
  }
  event.object = parsed["object"];
  return event;
}

std::string EventResourceVersion(const WatchEvent& event) {
  const auto metadata = event.object.find("metadata");
  if (metadata == event.object.end() || !metadata->is_object()) return "";
  return metadata->value("resourceVersion", "");
}

}  // namespace ergobench::kube
