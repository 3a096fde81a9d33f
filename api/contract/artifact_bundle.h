// ArtifactBundle: what rank 0 left in its output directory (the mllog, task 0a's tables, the
// summary), as it hands them to the operator over HTTP when its run has ended, so that they
// outlive the pod. The runner serves it; the operator keeps it in the Benchmark's results
// ConfigMap; `ergobench results export` writes it out as a local run's folder.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace ergobench {

// Rank 0's routes on its metrics port. GET the bundle once the run has ended (409 before);
// POST release to let rank 0 exit before its linger time is up.
inline constexpr char kArtifactsPath[] = "/artifacts";
inline constexpr char kArtifactsReleasePath[] = "/artifacts/release";
// 1 on rank 0's /metrics while it offers its bundle.
inline constexpr char kArtifactsOfferedMetric[] = "ergobench_artifacts_offered";

// The results ConfigMap that keeps them, with every rank's result and benchmark.json:
// <name>-results, annotated with its Benchmark's uid, which outlives the ownerReference.
inline constexpr char kResultsConfigMapSuffix[] = "-results";
inline constexpr char kResultsOfUidAnnotation[] = "ergobench.io/benchmark-uid";

// A file left out, and why: never a silent truncation.
struct SkippedFile {
  std::string name;
  int64_t bytes = 0;
  std::string reason;
  bool operator==(const SkippedFile&) const = default;
};

struct ArtifactBundle {
  std::map<std::string, std::string> files;  // name → content (UTF-8 text)
  std::vector<SkippedFile> skipped;
  bool operator==(const ArtifactBundle&) const = default;
};

// A name that a ConfigMap key and a file in a results folder can both hold: [-._a-zA-Z0-9]+,
// and neither "." nor "..".
bool IsPortableFileName(const std::string& name);

std::string EncodeArtifactBundle(const ArtifactBundle& bundle);
StatusOr<ArtifactBundle> DecodeArtifactBundle(const std::string& text);

}  // namespace ergobench
