// Fetching a data set when the user asks for it (dataset.source: url): download the
// archive once into a cache, check its sha256, extract it, and reuse it on later runs.
// Nothing is ever downloaded unless a Benchmark names a url. Several ranks on one host
// may fetch at once; a lock file makes one of them do it.
#pragma once

#include <string>

#include "base/status.h"

namespace ergobench {

// $ERGOBENCH_DATA_DIR, else $XDG_CACHE_HOME/ergobench/datasets, else ~/.cache/ergobench/datasets.
std::string DefaultDatasetCache();

// Returns the directory the archive was extracted into (cache/<sha256>/data). A checksum
// mismatch deletes the download and names both sums.
StatusOr<std::string> FetchDataset(const std::string& url, const std::string& sha256, const std::string& cache_dir);

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
