// The Dataset resource (ergobench.io/v1alpha1): training data staged once into a volume and
// shared read-only by every Benchmark that names it (spec.dataset.ref). The operator stages a
// url source into a PersistentVolumeClaim it owns with a Job; an existing claim is used as it
// is. Types only: the JSON form is in dataset_codec.h, checks in dataset_validation.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/v1alpha1/benchmark.h"

namespace ergobench {

inline constexpr char kDatasetKind[] = "Dataset";

// ergobench-stage's exits, which the operator's staging plan reads from its pods.
inline constexpr int kStagingExitRetry = 1;      // a retry may get past it (the network)
inline constexpr int kStagingExitPermanent = 2;  // none will: a checksum mismatch, an unsafe archive

// Phases of a Dataset.
inline constexpr char kDatasetPending[] = "Pending";  // not looked at yet
inline constexpr char kDatasetStaging[] = "Staging";  // its Job is fetching it
inline constexpr char kDatasetReady[] = "Ready";
inline constexpr char kDatasetFailed[] = "Failed";

struct DatasetSource {
  // An archive (or one file) fetched once, checked against sha256, extracted safely.
  std::string url;
  std::string sha256;
  // Or a claim that already holds the data, with the folder inside it ("" for its root).
  std::string claim_name;
  std::string claim_path;
};

struct DatasetStorage {
  std::string size;                 // Kubernetes quantity; room for the archive and what it extracts to
  std::string storage_class_name;   // empty: the cluster's default class
  // ReadWriteOnce puts every reader on the node that holds the volume; ranks spread over
  // nodes need ReadWriteMany (or a class whose ReadOnlyMany volumes the Job can fill).
  std::vector<std::string> access_modes;
};

struct DatasetResourceSpec {
  DatasetSource source;
  DatasetStorage storage;
};

struct DatasetStatus {
  std::string phase;
  std::vector<Condition> conditions;  // Ready
  std::string claim_name;  // the claim Benchmarks mount
  std::string path;        // the data's folder inside it ("" for its root)
  std::optional<int64_t> bytes;  // extracted
  std::string size;              // bytes for kubectl's column: "52.4Mi" (quantity.h)
  std::optional<int64_t> files;
  std::string staged_time;       // RFC 3339
  // The staging Job's fetch, check and extraction, and the extracted bytes over it.
  std::optional<double> staging_seconds;
  std::optional<double> staging_bytes_per_second;
  int64_t observed_generation = 0;  // the spec generation that phase describes
};

struct Dataset {
  std::string api_version;
  std::string kind;
  ObjectMeta metadata;
  DatasetResourceSpec spec;
  DatasetStatus status;
};

// The folder, relative to its claim, that a url source is staged into: one per archive, so
// an edit to another url stages beside the data that running Benchmarks still read.
std::string StagedDataPath(const DatasetSource& source);

}  // namespace ergobench
