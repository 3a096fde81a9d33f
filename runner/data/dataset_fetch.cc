#include "runner/data/dataset_fetch.h"

#include "api/benchmark.h"
#include "api/runner_invocation.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

// Writes to path.part and renames it into place only once complete, so that an
// interrupted download is never mistaken for the archive.
Status Download(const std::string& url, const std::string& path) {
  const std::string partial = path + ".part";
  FILE* out = std::fopen(partial.c_str(), "wb");
  if (out == nullptr) return Status::Unavailable(path + ": cannot write: " + std::strerror(errno));
  CURL* curl = curl_easy_init();
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  std::fclose(out);
  if (code != CURLE_OK) {
    fs::remove(partial);
    return Status::Unavailable("cannot download " + url + ": " + (error[0] ? error : curl_easy_strerror(code)));
  }
  std::error_code renamed;
  fs::rename(partial, path, renamed);
  if (renamed) return Status::Unavailable(path + ": cannot move the download into place: " + renamed.message());
  return Status::Ok();
}

// Neither absolute nor climbing out with "..".
bool IsSafeEntryName(const std::string& name) {
  if (name.empty() || name[0] == '/') return false;
  for (const fs::path& part : fs::path(name)) {
    if (part == "..") return false;
  }
  return true;
}

Status Extract(const std::string& archive_path, const std::string& into) {
  struct archive* in = archive_read_new();
  archive_read_support_filter_all(in);
  archive_read_support_format_all(in);
  archive_read_support_format_raw(in);  // a single compressed file, such as epsilon's .bz2
  struct archive* out = archive_write_disk_new();
  // Entry names are checked below (the destination prefix makes every final path absolute).
  archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                          ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  Status status = Status::Ok();
  if (archive_read_open_filename(in, archive_path.c_str(), 1 << 16) != ARCHIVE_OK) {
    status = Status::InvalidArgument(archive_path + ": not an archive: " + archive_error_string(in));
  }
  struct archive_entry* entry = nullptr;
  while (status.ok()) {
    const int r = archive_read_next_header(in, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      status = Status::InvalidArgument(archive_path + ": " + archive_error_string(in));
      break;
    }
    // The raw format names its one entry "data"; keep the archive's own name instead.
    std::string name = archive_entry_pathname(entry);
    if (name == "data" && archive_format(in) == ARCHIVE_FORMAT_RAW) {
      name = fs::path(archive_path).stem().string();
    }
    if (!IsSafeEntryName(name)) {
      status = Status::InvalidArgument(archive_path + ": refusing entry \"" + name + "\" outside the archive's folder");
      break;
    }
    archive_entry_set_pathname(entry, (fs::path(into) / name).c_str());
    if (const char* link = archive_entry_hardlink(entry)) {  // relative to the archive, like names
      if (!IsSafeEntryName(link)) {
        status = Status::InvalidArgument(archive_path + ": refusing hard link to \"" + link + "\"");
        break;
      }
      archive_entry_set_hardlink(entry, (fs::path(into) / link).c_str());
    }
    if (archive_write_header(out, entry) != ARCHIVE_OK) {
      status = Status::Unavailable(archive_path + ": cannot extract " + name + ": " + archive_error_string(out));
      break;
    }
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int rb;
    while ((rb = archive_read_data_block(in, &block, &size, &offset)) == ARCHIVE_OK) {
      if (archive_write_data_block(out, block, size, offset) != ARCHIVE_OK) break;
    }
    if (rb != ARCHIVE_EOF) status = Status::InvalidArgument(archive_path + ": corrupt entry " + name);
    archive_write_finish_entry(out);
  }
  archive_read_free(in);
  archive_write_free(out);
  return status;
}

// Holds an exclusive flock on `path` for its lifetime.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ < 0) return;
    int r;
    do {
      r = flock(fd_, LOCK_EX);
    } while (r != 0 && errno == EINTR);  // a stop signal must not let us in unlocked
    if (r != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

}  // namespace

std::string DefaultDatasetCache() {
  if (const char* dir = std::getenv(kDataDirEnv)) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME")) return std::string(xdg) + "/ergobench/datasets";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/.cache/ergobench/datasets";
}

StatusOr<std::string> Sha256OfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    EVP_DigestUpdate(ctx, buffer.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx, digest, &length);
  EVP_MD_CTX_free(ctx);
  std::string hex;
  char pair[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(pair, sizeof pair, "%02x", digest[i]);
    hex += pair;
  }
  return hex;
}

StatusOr<std::string> FetchDataset(const std::string& url, const std::string& sha256, const std::string& cache_dir) {
  const fs::path entry = fs::path(cache_dir) / sha256;
  std::error_code error;
  fs::create_directories(entry, error);
  if (error) return Status::Unavailable(entry.string() + ": cannot create: " + error.message());
  FileLock lock((entry / ".lock").string());
  if (!lock.ok()) return Status::Unavailable(entry.string() + "/.lock: cannot lock: " + std::strerror(errno));
  const fs::path data = entry / "data";
  if (fs::exists(entry / ".complete")) return data.string();

  const std::string file_name = fs::path(url).filename().empty() ? "archive" : fs::path(url).filename().string();
  const fs::path archive = entry / file_name;
  const bool cached = fs::exists(archive);
  if (!cached) RETURN_IF_ERROR(Download(url, archive.string()));
  ASSIGN_OR_RETURN(std::string actual, Sha256OfFile(archive.string()));
  if (actual != sha256 && cached) {  // a stale or damaged copy: fetch it afresh once
    fs::remove(archive, error);
    RETURN_IF_ERROR(Download(url, archive.string()));
    ASSIGN_OR_RETURN(actual, Sha256OfFile(archive.string()));
  }
  if (actual != sha256) {
    fs::remove(archive, error);
    return Status::InvalidArgument("spec.dataset.sha256: " + url + " has sha256 " + actual + ", expected " + sha256);
  }
  fs::remove_all(data, error);
  fs::create_directories(data, error);
  RETURN_IF_ERROR(Extract(archive.string(), data.string()));
  std::ofstream(entry / ".complete") << url << "\n";
  return data.string();
}

StatusOr<std::string> ResolveDatasetDir(const DatasetSpec& dataset, const std::string& marker_file) {
  if (dataset.source != "url") return dataset.path;
  ASSIGN_OR_RETURN(std::string root, FetchDataset(dataset.url, dataset.sha256, DefaultDatasetCache()));
  return FindDirectoryHolding(root, marker_file);
}

StatusOr<std::string> FindDirectoryHolding(const std::string& root, const std::string& file) {
  if (fs::exists(fs::path(root) / file)) return root;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error); it != fs::recursive_directory_iterator(); ++it) {
    if (it.depth() > 1) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory() && fs::exists(it->path() / file)) return it->path().string();
  }
  return Status::NotFound(root + ": no directory in the data set holds " + file);
}

}  // namespace ergobench
