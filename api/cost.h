// Cost: what a run costs at the prices of spec.pricing, as MLBench and DAWNBench count it,
// cost = ranks × hours × price per worker-hour (plus GPUs × accelerator-hour), for the
// timed region and to accuracy, on-demand and preemptible. Prices left out of the spec come
// from the price table by spec.pricing.label.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/benchmark.h"
#include "base/status.h"

namespace ergobench {

struct PriceEntry {
  std::string label;  // "n1-standard-4", "nvidia-tesla-t4"
  std::string kind;   // instance | accelerator
  std::string currency;
  double hour = 0;
  std::optional<double> preemptible_hour;
  std::string date;
  std::string source;
};

StatusOr<std::vector<PriceEntry>> ParsePriceTable(std::string_view yaml, const std::string& source);

// $ERGOBENCH_PRICE_TABLE when set, else the table built in from api/prices.yaml.
StatusOr<std::vector<PriceEntry>> LoadPriceTable();

// Fills workerHour (and the preemptible price and currency) from the table entry named by
// pricing.label, where the spec leaves them out. Unknown labels are left for validation.
void ApplyPriceTable(const std::vector<PriceEntry>& table, Pricing* pricing);

// Adds costUSD, costToAccuracyUSD and their preemptible variants to `results`, from its
// runSeconds and timeToAccuracySeconds, when the spec has pricing.
void PriceResults(const BenchmarkSpec& spec, BenchmarkResults* results);

}  // namespace ergobench
