// Fetching a data set when the user asks for it (dataset.source: url): download the
// archive once into a cache, check its sha256, extract it, and reuse it on later runs.
// Nothing is ever downloaded unless a Benchmark names a url. Several ranks on one host
// may fetch at once; a lock file makes one of them do it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "base/cidr.h"
#include "base/status.h"

namespace ergobench {

// What one fetch may cost. A URL in a Benchmark is the author's, so it is held to limits:
// http(s) only, a bounded size and redirect chain, a transfer that keeps moving, and an
// archive that holds only files and folders (and links that stay inside), within size and count.
struct FetchLimits {
  // file:// reads the node's own files: only for tests and local mirrors, by choice
  // ($ERGOBENCH_ALLOW_FILE_URLS=1 in FromEnv).
  bool allow_file_urls = false;
  uint64_t max_download_bytes = uint64_t{64} << 30;
  uint64_t max_extracted_bytes = uint64_t{256} << 30;
  uint64_t max_entries = 4'000'000;  // ImageNet's training set has 1.28 million files
  long max_redirects = 5;
  std::chrono::seconds connect_timeout{30};
  // A transfer slower than this many bytes per second for low_speed_time is abandoned, so a
  // stalled or trickling server does not hold the other ranks waiting on the cache's lock (on
  // a cluster the staging Job's deadline bounds the whole, dataset_builders.h).
  long low_speed_bytes_per_second = 32 * 1024;
  std::chrono::seconds low_speed_time{60};
  // On a cluster: refuse to connect to an internal address (InternalNetworks(): loopback, the
  // cloud's metadata service, the cluster's private ranges) outside `allowed_networks`. Checked
  // at each connection, so a redirect or a DNS answer that changes does not get past it.
  bool refuse_internal_networks = false;
  std::vector<Cidr> allowed_networks;

  // ERGOBENCH_ALLOW_FILE_URLS=1; ERGOBENCH_FETCH_REFUSE_INTERNAL=1 and
  // ERGOBENCH_FETCH_ALLOWED_NETWORKS (comma-separated), which the operator sets in its pods (it
  // checks the networks at its start; one that does not parse here allows nothing).
  static FetchLimits FromEnv();
};

// $ERGOBENCH_DATA_DIR, else $XDG_CACHE_HOME/ergobench/datasets, else ~/.cache/ergobench/datasets.
std::string DefaultDatasetCache();

// Returns the directory the archive was extracted into (cache/<sha256>/data). A checksum
// mismatch deletes the download and names both sums.
StatusOr<std::string> FetchDataset(const std::string& url, const std::string& sha256, const std::string& cache_dir,
                                   const FetchLimits& limits = FetchLimits::FromEnv());

// The first directory at or under `root` (two levels at most) that holds `file`: archives
// put their files one folder down (cifar-10-binary.tar.gz holds cifar-10-batches-bin/).
StatusOr<std::string> FindDirectoryHolding(const std::string& root, const std::string& file);

// The directory a task reads its files from: spec.dataset.path, or for source url the
// fetched data set's directory that holds `marker_file`.
struct DatasetSpec;
StatusOr<std::string> ResolveDatasetDir(const DatasetSpec& dataset, const std::string& marker_file);

// Lowercase hex SHA-256 of a file.
StatusOr<std::string> Sha256OfFile(const std::string& path);

}  // namespace ergobench
