// Cost and carbon of a run, as MLBench and DAWNBench count cost: hours × price per hour, for the
// timed region and to accuracy, on demand and on spot side by side. The price per hour comes,
// first found:
//  1. spec.pricing.workerHour / acceleratorHour: per worker, as the author wrote them;
//  2. spec.pricing.label: each worker is one instance of that type, at its catalog price in
//     spec.pricing.region (or the nodes' region);
//  3. the catalog price of the nodes' instance type in their region (price_catalog.h).
// At catalog prices (3) a run pays for a whole node when it had the node to itself (the node
// energy agent saw no other pod there; a local run's host), else for its share of it: its ranks
// there × the largest of CPU, memory and GPUs requested over what the node has allocatable.
// Accelerators priced apart (GCP attaches GPUs to instances) add their catalog price per device.
// Carbon is the run's energy × its region's grid intensity.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "api/pricing/price_catalog.h"
#include "api/v1alpha1/benchmark.h"
#include "api/v1alpha1/system.h"

namespace ergobench {

// A node the run used, and whether it used it alone.
struct NodeUse {
  NodeFacts node;
  int64_t ranks = 0;
  bool exclusive = false;
};

struct PricingContext {
  const PriceCatalog* catalog = nullptr;
  std::chrono::system_clock::time_point now;
  // A price older than this is used, and reported stale next to the cost.
  int64_t max_age_days = 365;
};

inline constexpr int64_t kDefaultPriceMaxAgeDays = 365;

// Fills results' cost, price, carbon and note fields from its figures (runSeconds, time to
// accuracy, samples, tokens, energy) and results->system.
void PriceResults(const BenchmarkSpec& spec, const std::vector<NodeUse>& nodes, const PricingContext& context,
                  BenchmarkResults* results);

}  // namespace ergobench
