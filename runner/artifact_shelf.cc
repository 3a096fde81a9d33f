#include "runner/artifact_shelf.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>
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

StatusOr<std::string> ReadArtifactToken(const std::string& path) {
  if (path.empty()) return std::string();
  constexpr size_t kMaxTokenBytes = 4096;
  std::ifstream in(path, std::ios::binary);
  std::string token(kMaxTokenBytes + 3, '\0');  // the token, a line end, and one byte too many
  in.read(token.data(), static_cast<std::streamsize>(token.size()));
  if (in.bad() || (!in && !in.eof())) return Status::InvalidArgument("--artifact-token-file " + path + ": cannot read it");
  token.resize(static_cast<size_t>(in.gcount()));
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
  if (token.size() > kMaxTokenBytes) {
    return Status::InvalidArgument("--artifact-token-file " + path + ": over " + std::to_string(kMaxTokenBytes) + " bytes");
  }
  if (token.empty()) return Status::InvalidArgument("--artifact-token-file " + path + ": empty");
  for (const char c : token) {
    if (c <= ' ' || c > '~') return Status::InvalidArgument("--artifact-token-file " + path + ": not printable ASCII");
  }
  return token;
}

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

bool ArtifactShelf::Authorized(std::string_view authorization) const {
  if (token_.empty()) return true;
  // RFC 7235: the scheme is case-insensitive; one space, then the token as issued.
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() != kScheme.size() + token_.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != kScheme[i]) return false;
  }
  // In constant time: how long a wrong guess took says nothing of the token.
  return CRYPTO_memcmp(authorization.data() + kScheme.size(), token_.data(), token_.size()) == 0;
}

std::optional<HttpReply> ArtifactShelf::Answer(const RouteRequest& request) {
  const std::string_view method = request.method, path = request.path;
  const bool fetch = path == kArtifactsPath && (method == "GET" || method == "HEAD");
  const bool release = path == kArtifactsReleasePath && method == "POST";
  if (path != kArtifactsPath && path != kArtifactsReleasePath) return std::nullopt;
  if (!Authorized(request.authorization)) {
    return HttpReply{401, "text/plain", "the Benchmark's artifact token is required\n",
                     {{"WWW-Authenticate", "Bearer realm=\"ergobench artifacts\""}}};
  }
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
