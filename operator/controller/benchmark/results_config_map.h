// The results ConfigMap, <name>-results: what `ergobench run` leaves in a folder (benchmark.json
// with the final status, each rank's rank-<i>.json and .summary, rank 0's mllog and tables),
// written when the Benchmark finishes, so that it outlives the pods, and the Benchmark too
// under spec.runPolicy.keepResults. `ergobench results export` writes it back out as a folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/contract/artifact_bundle.h"
#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/result.h"

namespace ergobench::controller {

// A ConfigMap holds at most 1 MiB; this leaves room for its metadata. What does not fit is
// listed in MANIFEST, with its size, never cut.
inline constexpr int64_t kResultsBudgetBytes = 900 * 1024;
inline constexpr char kResultsManifestKey[] = "MANIFEST";

std::string ResultsConfigMapName(const Benchmark& benchmark);

// Rank 0's artifacts, or why there are none.
struct CollectedArtifacts {
  std::optional<ArtifactBundle> bundle;
  std::string missing_reason;  // when no bundle
};

// `finished` carries its final status; `ranks` are the results the pods' termination messages
// gave, by rank. benchmark.json and MANIFEST always fit; then the rank results, then the
// artifacts, smallest first, while the budget lasts.
nlohmann::json BuildResultsConfigMap(const Benchmark& finished, const std::vector<RankResult>& ranks,
                                     const CollectedArtifacts& artifacts, int64_t budget = kResultsBudgetBytes);

}  // namespace ergobench::controller
