#include "runner/data/dataset_fetch.h"

#include "api/contract/runner_invocation.h"
#include "api/v1alpha1/benchmark.h"
#include "base/hmac_sha256.h"

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ergobench {
namespace {

namespace fs = std::filesystem;

// Aborts a transfer past the size limit even when the server announced no length.
int AbortPastLimit(void* limit, curl_off_t, curl_off_t downloaded, curl_off_t, curl_off_t) {
  return downloaded > static_cast<curl_off_t>(*static_cast<const uint64_t*>(limit)) ? 1 : 0;
}

// curl's CURLOPT_OPENSOCKETFUNCTION: each connection's address, redirects' included, checked
// before the socket is made.
struct ConnectCheck {
  const FetchLimits* limits;
  std::string refused;  // the first address refused, as a kind of address (never the address)
};

curl_socket_t OpenCheckedSocket(void* data, curlsocktype purpose, struct curl_sockaddr* address) {
  auto* check = static_cast<ConnectCheck*>(data);
  if (purpose == CURLSOCKTYPE_IPCXN && check->limits->refuse_internal_networks) {
    const sockaddr* to = &address->addr;
    const auto in = [to](const std::vector<Cidr>& networks) {
      return std::any_of(networks.begin(), networks.end(), [to](const Cidr& n) { return Contains(n, to); });
    };
    if (in(InternalNetworks()) && !in(check->limits->allowed_networks)) {
      if (check->refused.empty()) {
        check->refused = "refusing to connect to an internal address (loopback, link-local or a private range): a "
                         "mirror inside the cluster's networks needs its range in the operator's "
                         "policy.datasetAllowedNetworks";
      }
      return CURL_SOCKET_BAD;
    }
  }
  return socket(address->family, address->socktype, address->protocol);
}

// Writes to path.part and renames it into place only once complete, so that an interrupted
// download is never mistaken for the archive. A path.part left by an interrupted try is
// continued where it stopped (a Range request): a staging Job retried after a network failure
// does not start a large download over. `resumed` says whether this try continued one; a
// server that cannot continue it gets one try from the start.
Status Download(const std::string& url, const std::string& path, const FetchLimits& limits, bool* resumed) {
  const std::string partial = path + ".part";
  std::error_code size_error;
  const uint64_t have = fs::exists(partial) ? fs::file_size(partial, size_error) : 0;
  *resumed = have > 0 && !size_error;
  FILE* out = std::fopen(partial.c_str(), *resumed ? "ab" : "wb");
  if (out == nullptr) return Status::Unavailable(path + ": cannot write: " + std::strerror(errno));
  const uint64_t remaining = limits.max_download_bytes > have ? limits.max_download_bytes - have : 0;
  CURL* curl = curl_easy_init();
  char error[CURL_ERROR_SIZE] = "";
  const char* protocols = limits.allow_file_urls ? "http,https,file" : "http,https";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, protocols);
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, limits.max_redirects);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, static_cast<long>(limits.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, limits.low_speed_bytes_per_second);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(limits.low_speed_time.count()));
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(remaining));
  ConnectCheck check{&limits, ""};
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, OpenCheckedSocket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &check);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, AbortPastLimit);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &remaining);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  if (*resumed) curl_easy_setopt(curl, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(have));
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  std::fclose(out);
  if (code != CURLE_OK && !check.refused.empty()) {
    fs::remove(partial);
    return Status::InvalidArgument("spec.dataset.url: " + check.refused);  // no retry mends it
  }
  if (code == CURLE_FILESIZE_EXCEEDED || code == CURLE_ABORTED_BY_CALLBACK) {
    fs::remove(partial);
    return Status::InvalidArgument("spec.dataset.url: " + url + " is larger than " +
                                   std::to_string(limits.max_download_bytes) + " bytes");
  }
  if (code != CURLE_OK && *resumed && (code == CURLE_RANGE_ERROR || code == CURLE_BAD_DOWNLOAD_RESUME ||
                                       code == CURLE_HTTP_RETURNED_ERROR)) {
    fs::remove(partial);  // the server cannot continue it (or it is not this file's start)
    return Download(url, path, limits, resumed);
  }
  // Anything else leaves the part for the next try to continue.
  if (code != CURLE_OK) return Status::Unavailable("cannot download " + url + ": " + (error[0] ? error : curl_easy_strerror(code)));
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

// A link `name` → `target` that resolves inside the archive's folder.
bool IsInsideLink(const std::string& name, const std::string& target) {
  if (target.empty() || target[0] == '/') return false;
  int depth = 0;
  for (const fs::path& part : fs::path(name).parent_path() / target) {
    if (part == "..") {
      if (--depth < 0) return false;
    } else if (part != "." && !part.empty()) {
      ++depth;
    }
  }
  return true;
}

// libarchive's last error, which it may not have set (NULL).
std::string ArchiveError(struct archive* archive, const char* otherwise) {
  const char* error = archive_error_string(archive);
  return error != nullptr ? error : otherwise;
}

// Why the archive's entry `name` may not be extracted, or empty.
std::string RefusalOf(struct archive_entry* entry, const std::string& name) {
  if (!IsSafeEntryName(name)) return "refusing entry \"" + name + "\" outside the archive's folder";
  if (const char* link = archive_entry_hardlink(entry)) {  // relative to the archive, like names
    if (!IsSafeEntryName(link)) return "refusing hard link to \"" + std::string(link) + "\"";
    return "";
  }
  switch (archive_entry_filetype(entry)) {
    case AE_IFREG:
    case AE_IFDIR:
      return "";
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(entry);
      if (target != nullptr && IsInsideLink(name, target)) return "";
      return "refusing link " + name + " -> " + (target ? target : "") + ": it leads outside the archive";
    }
    default:
      return "refusing " + name + ": not a file, folder or link";
  }
}

// Each link checked alone can stay inside while a chain of them leads out ("s2" -> ".", then
// "s1" -> "s2/..", "s3" -> "s1/.."): every link extracted must resolve inside `into`.
Status CheckLinksResolveInside(const std::string& archive_path, const fs::path& into) {
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(into, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (!it->is_symlink(error)) continue;
    const fs::path resolved = fs::weakly_canonical(it->path(), error);
    const fs::path inside = resolved.lexically_relative(into);
    if (error || inside.empty() || *inside.begin() == "..") {
      return Status::InvalidArgument(archive_path + ": refusing link " + it->path().lexically_relative(into).string() +
                                     " -> " + fs::read_symlink(it->path(), error).string() +
                                     ": it leads outside the archive");
    }
  }
  if (error) return Status::Unavailable(into.string() + ": cannot check the extracted links: " + error.message());
  return Status::Ok();
}

// Extracts `archive_path` into `into`, entry by entry, within the limits' bytes and entries.
Status Extract(const std::string& archive_path, const std::string& into, const FetchLimits& limits) {
  struct archive* in = archive_read_new();
  archive_read_support_filter_all(in);
  archive_read_support_format_all(in);
  archive_read_support_format_raw(in);  // a single compressed file, such as epsilon's .bz2
  struct archive* out = archive_write_disk_new();
  // Entry names and links are checked below; `into` is canonical (no links of its own).
  archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                          ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  Status status = Status::Ok();
  if (archive_read_open_filename(in, archive_path.c_str(), 1 << 16) != ARCHIVE_OK) {
    status = Status::InvalidArgument(archive_path + ": not an archive: " + ArchiveError(in, "unreadable"));
  }
  struct archive_entry* entry = nullptr;
  uint64_t entries = 0, bytes = 0;
  while (status.ok()) {
    const int r = archive_read_next_header(in, &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
      status = Status::InvalidArgument(archive_path + ": " + ArchiveError(in, "an unreadable entry"));
      break;
    }
    const char* pathname = archive_entry_pathname(entry);
    if (pathname == nullptr) {
      status = Status::InvalidArgument(archive_path + ": an entry without a name");
      break;
    }
    // The raw format names its one entry "data"; keep the archive's own name instead.
    std::string name = pathname;
    if (name == "data" && archive_format(in) == ARCHIVE_FORMAT_RAW) {
      name = fs::path(archive_path).stem().string();
    }
    if (const std::string refusal = RefusalOf(entry, name); !refusal.empty()) {
      status = Status::InvalidArgument(archive_path + ": " + refusal);
      break;
    }
    if (++entries > limits.max_entries) {
      status = Status::InvalidArgument(archive_path + ": more than " + std::to_string(limits.max_entries) + " entries");
      break;
    }
    archive_entry_set_pathname(entry, (fs::path(into) / name).c_str());
    if (const char* link = archive_entry_hardlink(entry)) archive_entry_set_hardlink(entry, (fs::path(into) / link).c_str());
    if (archive_write_header(out, entry) != ARCHIVE_OK) {
      status = Status::Unavailable(archive_path + ": cannot extract " + name + ": " + ArchiveError(out, "refused"));
      break;
    }
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int rb;
    bool written = true;
    while ((rb = archive_read_data_block(in, &block, &size, &offset)) == ARCHIVE_OK) {
      // Count what the archive yields, not what it claims: a bomb's headers lie.
      bytes += size;
      if (bytes > limits.max_extracted_bytes) break;
      if (archive_write_data_block(out, block, size, offset) != ARCHIVE_OK) {
        written = false;
        break;
      }
    }
    // A full disk is this side's trouble, worth another try, not the archive's.
    written = archive_write_finish_entry(out) == ARCHIVE_OK && written;
    if (bytes > limits.max_extracted_bytes) {
      status = Status::InvalidArgument(archive_path + ": extracts to more than " +
                                       std::to_string(limits.max_extracted_bytes) + " bytes");
    } else if (!written) {
      status = Status::Unavailable(archive_path + ": cannot write " + name + ": " + ArchiveError(out, "the write failed"));
    } else if (rb != ARCHIVE_EOF) {
      status = Status::InvalidArgument(archive_path + ": corrupt entry " + name);
    }
  }
  archive_read_free(in);
  archive_write_free(out);
  if (status.ok()) status = CheckLinksResolveInside(archive_path, into);
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

FetchLimits FetchLimits::FromEnv() {
  FetchLimits limits;
  const auto is_one = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && std::string(value) == "1";
  };
  limits.allow_file_urls = is_one("ERGOBENCH_ALLOW_FILE_URLS");
  limits.refuse_internal_networks = is_one("ERGOBENCH_FETCH_REFUSE_INTERNAL");
  if (const char* allowed = std::getenv("ERGOBENCH_FETCH_ALLOWED_NETWORKS")) {
    std::stringstream list(allowed);
    for (std::string network; std::getline(list, network, ',');) {
      if (StatusOr<Cidr> parsed = ParseCidr(network); parsed.ok()) limits.allowed_networks.push_back(*parsed);
    }
  }
  return limits;
}

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
  return LowerHex(digest, length);
}

StatusOr<std::string> FetchDataset(const std::string& url, const std::string& sha256, const std::string& cache_dir,
                                   const FetchLimits& limits) {
  const bool http = url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
  if (!http && !(limits.allow_file_urls && url.rfind("file://", 0) == 0)) {
    return Status::InvalidArgument("spec.dataset.url: only http:// and https:// URLs are fetched, got \"" + url +
                                   "\" (file:// needs ERGOBENCH_ALLOW_FILE_URLS=1)");
  }
  std::error_code error;
  fs::create_directories(cache_dir, error);
  // Canonical: libarchive's secure-symlinks check refuses any link in a destination path, the
  // cache's own parents included.
  const fs::path entry = fs::canonical(cache_dir, error) / sha256;
  if (!error) fs::create_directories(entry, error);
  if (error) return Status::Unavailable(entry.string() + ": cannot create: " + error.message());
  FileLock lock((entry / ".lock").string());
  if (!lock.ok()) return Status::Unavailable(entry.string() + "/.lock: cannot lock: " + std::strerror(errno));
  const fs::path data = entry / "data";
  if (fs::exists(entry / ".complete")) return data.string();

  // In a folder of its own: named by the url, it could otherwise be ".lock", ".complete" or "data".
  std::string file_name = fs::path(url).filename().string();
  if (file_name.empty() || file_name == "." || file_name == "..") file_name = "archive";
  fs::create_directories(entry / "download", error);
  const fs::path archive = entry / "download" / file_name;
  const bool cached = fs::exists(archive);
  bool resumed = false;
  if (!cached) RETURN_IF_ERROR(Download(url, archive.string(), limits, &resumed));
  ASSIGN_OR_RETURN(std::string actual, Sha256OfFile(archive.string()));
  if (actual != sha256 && (cached || resumed)) {
    // A stale or damaged copy, or a continued download whose first part was not this file's:
    // fetch it afresh once.
    fs::remove(archive, error);
    RETURN_IF_ERROR(Download(url, archive.string(), limits, &resumed));
    ASSIGN_OR_RETURN(actual, Sha256OfFile(archive.string()));
  }
  if (actual != sha256) {
    fs::remove(archive, error);
    return Status::InvalidArgument("spec.dataset.sha256: " + url + " has sha256 " + actual + ", expected " + sha256);
  }
  fs::remove_all(data, error);
  fs::create_directories(data, error);
  if (Status extracted = Extract(archive.string(), data.string(), limits); !extracted.ok()) {
    fs::remove_all(data, error);  // what a refused archive left is never read
    return extracted;
  }
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
