#include "runner/artifact_shelf.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/units.h"
#include "base/utf8.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  if (!in && !in.eof()) return std::nullopt;
  return content.str();
}

}  // namespace

ArtifactBundle ReadArtifactDir(const std::string& dir, int64_t max_bytes) {
  ArtifactBundle bundle;
  std::error_code error;
  std::vector<std::pair<int64_t, fs::path>> candidates;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    std::error_code size_error;
    const int64_t bytes = entry.is_regular_file() ? static_cast<int64_t>(entry.file_size(size_error)) : 0;
    if (!entry.is_regular_file() || size_error) {
      bundle.skipped.push_back({name, 0, "not a regular file"});
    } else if (!IsPortableFileName(name)) {
      bundle.skipped.push_back({name, bytes, "its name is not [-._a-zA-Z0-9]+"});
    } else {
      candidates.emplace_back(bytes, entry.path());
    }
  }
  std::sort(candidates.begin(), candidates.end());  // smallest first: most files fit
  int64_t total = 0;
  for (const auto& [bytes, path] : candidates) {
    const std::string name = path.filename().string();
    if (total + bytes > max_bytes) {
      bundle.skipped.push_back({name, bytes, "over the " + FormatBytes(static_cast<double>(max_bytes)) + " rank 0 serves"});
      continue;
    }
    std::optional<std::string> content = ReadWhole(path);
    if (!content) {
      bundle.skipped.push_back({name, bytes, "unreadable"});
    } else if (FirstInvalidUtf8(*content) != std::string::npos) {
      bundle.skipped.push_back({name, bytes, "not UTF-8 text"});
    } else {
      total += static_cast<int64_t>(content->size());
      bundle.files[name] = std::move(*content);
    }
  }
  std::sort(bundle.skipped.begin(), bundle.skipped.end(),
            [](const SkippedFile& a, const SkippedFile& b) { return a.name < b.name; });
  return bundle;
}

std::optional<HttpReply> ArtifactShelf::Answer(std::string_view method, std::string_view path) {
  const bool fetch = path == kArtifactsPath && (method == "GET" || method == "HEAD");
  const bool release = path == kArtifactsReleasePath && method == "POST";
  if (path != kArtifactsPath && path != kArtifactsReleasePath) return std::nullopt;
  if (!fetch && !release) return HttpReply{405, "text/plain", "GET " + std::string(kArtifactsPath) + ", POST " +
                                                                  kArtifactsReleasePath + "\n"};
  std::lock_guard<std::mutex> lock(mutex_);
  if (!bundle_) return HttpReply{409, "text/plain", "the run has not ended\n"};
  if (fetch) return HttpReply{200, "application/json", *bundle_};
  released_ = true;
  changed_.notify_all();
  return HttpReply{200, "text/plain", "released\n"};
}

void ArtifactShelf::Offer() {
  std::string encoded = EncodeArtifactBundle(ReadArtifactDir(dir_, kMaxBytes));
  std::lock_guard<std::mutex> lock(mutex_);
  bundle_ = std::move(encoded);
}

std::string ArtifactShelf::WaitForRelease(std::chrono::milliseconds linger, const std::function<bool()>& stopped) {
  const auto deadline = std::chrono::steady_clock::now() + linger;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!released_) {
    if (stopped()) return "stopped";
    if (std::chrono::steady_clock::now() >= deadline) {
      return "nobody took them within " + FormatSeconds(linger.count() / 1000.0);
    }
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
  return "released";
}

}  // namespace ergobench
