#include "api/cost.h"

#include <cstdlib>

#include "api/load.h"
#include "api/prices_data.h"
#include "base/json_reader.h"
#include "base/yaml_json.h"

namespace ergobench {

StatusOr<std::vector<PriceEntry>> ParsePriceTable(std::string_view yaml, const std::string& source) {
  ASSIGN_OR_RETURN(const std::vector<nlohmann::json> documents, ParseYamlDocuments(yaml, source));
  if (documents.size() != 1 || !documents[0].is_array()) {
    return Status::InvalidArgument(source + ": a price table is one list of entries");
  }
  std::vector<PriceEntry> table;
  FieldErrors errors;
  for (size_t i = 0; i < documents[0].size(); ++i) {
    ObjectReader r(&documents[0][i], IndexPath(source, i), &errors);
    PriceEntry entry;
    r.String("label", &entry.label);
    r.String("kind", &entry.kind);
    r.String("currency", &entry.currency);
    r.Number("hour", &entry.hour);
    r.Number("preemptibleHour", &entry.preemptible_hour);
    r.String("date", &entry.date);
    r.String("source", &entry.source);
    if (entry.label.empty()) errors.Add(IndexPath(source, i) + ".label", "is required");
    if (entry.hour <= 0) errors.Add(IndexPath(source, i) + ".hour", "must be a positive price");
    if (entry.date.empty() || entry.source.empty()) {
      errors.Add(IndexPath(source, i), "every price needs its date and its source");
    }
    table.push_back(std::move(entry));
  }
  RETURN_IF_ERROR(errors.ToStatus());
  return table;
}

StatusOr<std::vector<PriceEntry>> LoadPriceTable() {
  if (const char* path = std::getenv("ERGOBENCH_PRICE_TABLE"); path != nullptr && *path != '\0') {
    ASSIGN_OR_RETURN(const std::string text, ReadFile(path));
    return ParsePriceTable(text, path);
  }
  return ParsePriceTable(kDefaultPriceTable, "api/prices.yaml");
}

void ApplyPriceTable(const std::vector<PriceEntry>& table, Pricing* pricing) {
  if (pricing->label.empty() || pricing->worker_hour) return;
  for (const PriceEntry& entry : table) {
    if (entry.label != pricing->label || entry.kind != "instance") continue;
    pricing->worker_hour = entry.hour;
    if (!pricing->preemptible_worker_hour) pricing->preemptible_worker_hour = entry.preemptible_hour;
    if (pricing->currency.empty()) pricing->currency = entry.currency;
    return;
  }
}

void PriceResults(const BenchmarkSpec& spec, BenchmarkResults* results) {
  if (!spec.pricing) return;
  const Pricing& p = *spec.pricing;
  const double workers = static_cast<double>(spec.workers.value_or(1));
  const double gpus = static_cast<double>(spec.resources.gpu);
  auto cost = [&](std::optional<double> worker_hour, double seconds) -> std::optional<double> {
    if (!worker_hour && !p.accelerator_hour) return std::nullopt;
    const double per_worker_hour = worker_hour.value_or(0) + gpus * p.accelerator_hour.value_or(0);
    return workers * (seconds / 3600.0) * per_worker_hour;
  };
  const Figures& f = results->figures;
  results->cost_usd = cost(p.worker_hour, f.run_seconds);
  if (p.preemptible_worker_hour) results->preemptible_cost_usd = cost(p.preemptible_worker_hour, f.run_seconds);
  if (f.goal_reached.value_or(false) && f.time_to_accuracy_seconds) {
    results->cost_to_accuracy_usd = cost(p.worker_hour, *f.time_to_accuracy_seconds);
    if (p.preemptible_worker_hour) {
      results->preemptible_cost_to_accuracy_usd = cost(p.preemptible_worker_hour, *f.time_to_accuracy_seconds);
    }
  }
  results->currency = p.currency;
}

}  // namespace ergobench
