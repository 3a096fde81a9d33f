// `ergobench results export`: a cluster run's results ConfigMap (<name>-results, written by the
// operator when the Benchmark finished) written out as the folder `ergobench run` leaves, so
// that `ergobench report` and any script read cluster and local runs alike.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/report/training_curves.h"

#include "api/v1alpha1/benchmark.h"
#include "base/status.h"

namespace ergobench {

// Writes every data key of `config_map` as a file of `dir`, which must not exist yet. Returns
// MANIFEST's lines for what the ConfigMap left out, so that the caller can say so. A key that
// is not a plain file name is refused: the ConfigMap is data from the cluster, not a path.
StatusOr<std::vector<std::string>> WriteResultsFolder(const nlohmann::json& config_map, const std::string& dir);

// The finished Benchmarks kept in results ConfigMaps whose Benchmark is gone (its uid is not in
// `live_uids`), from their benchmark.json: `ergobench report --cluster` shows them too.
std::vector<Benchmark> KeptResultsOfDeletedBenchmarks(const std::vector<nlohmann::json>& config_maps,
                                                     const std::set<std::string>& live_uids);

// Task 0a's per-size tables kept in results ConfigMaps (allreduce.json), by their Benchmark's
// uid: `ergobench report --cluster --charts` draws bus bandwidth against size from them.
std::map<std::string, nlohmann::json> AllreduceTablesOf(const std::vector<nlohmann::json>& config_maps);

// Rank 0's training curves kept in results ConfigMaps (rank-0.mllog), by their Benchmark's uid.
TrainingCurves TrainingCurvesOf(const std::vector<nlohmann::json>& config_maps);

}  // namespace ergobench
