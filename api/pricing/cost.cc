#include "api/pricing/cost.h"

#include <algorithm>
#include <optional>

#include "api/v1alpha1/quantity.h"
#include "base/units.h"

namespace ergobench {
namespace {

// Price per hour of the whole run, on demand and on spot (absent when any part lacks it).
struct HourlyPrice {
  double on_demand = 0;
  std::optional<double> spot = 0.0;
  std::string currency;
};

PriceUsed Used(const PriceEntry& e, const PricingContext& context) {
  const std::optional<int64_t> age = PriceAgeDays(e, context.now);
  const bool stale = age && *age > context.max_age_days;
  return {e.kind, e.instance_type, e.region, e.on_demand_hour, e.spot_hour, e.effective_date, e.source, age, stale};
}

// Each price once, however many nodes it priced.
void AddUnique(const PriceUsed& used, std::vector<PriceUsed>* prices) {
  if (std::find(prices->begin(), prices->end(), used) == prices->end()) prices->push_back(used);
}

void Add(HourlyPrice* price, double units, double on_demand, std::optional<double> spot) {
  price->on_demand += units * on_demand;
  price->spot = price->spot && spot ? std::optional<double>(*price->spot + units * *spot) : std::nullopt;
}

// The share of `node` that `ranks` ranks requested: the largest of CPU, memory and GPUs. A run
// that requested nothing the node states (no requests, or a node without allocatable) is
// charged the whole node rather than nothing, which would read as free.
double RequestedShare(const BenchmarkSpec& spec, const NodeUse& use) {
  const auto requested = [](const std::string& quantity) {
    StatusOr<double> value = ParseQuantity(quantity);
    return value.ok() ? *value : 0.0;
  };
  const NodeFacts& n = use.node;
  double share = 0;
  if (n.cpus > 0) share = std::max(share, requested(spec.resources.cpu) / n.cpus);
  if (n.memory_bytes > 0) share = std::max(share, requested(spec.resources.memory) / n.memory_bytes);
  if (n.accelerators > 0) share = std::max(share, static_cast<double>(spec.resources.gpu) / static_cast<double>(n.accelerators));
  return share > 0 ? std::min(1.0, static_cast<double>(use.ranks) * share) : 1.0;
}

// "2", "0.5", "0.333".
std::string Count(double n) {
  std::string text = FormatFixed(n, 3);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// Rule 1: the spec's own prices, per worker (and per GPU of each worker).
HourlyPrice SpecPrice(const BenchmarkSpec& spec, BenchmarkResults* results) {
  const Pricing& p = *spec.pricing;
  const double workers = static_cast<double>(spec.workers);
  const double accelerators = static_cast<double>(spec.resources.gpu) * p.accelerator_hour.value_or(0);
  HourlyPrice price{workers * (p.worker_hour.value_or(0) + accelerators), std::nullopt, p.currency};
  if (p.preemptible_worker_hour) price.spot = workers * (*p.preemptible_worker_hour + accelerators);
  PriceUsed used;
  used.kind = "spec";
  used.on_demand_hour = p.worker_hour.value_or(0);
  used.spot_hour = p.preemptible_worker_hour;
  results->prices.push_back(used);
  results->cost_basis = "spec.pricing: " + Count(workers) + " workers at the spec's prices";
  return price;
}

// Rule 2: spec.pricing.label, one instance per worker.
std::optional<HourlyPrice> LabelPrice(const BenchmarkSpec& spec, const SystemIdentity& system,
                                      const PricingContext& context, BenchmarkResults* results) {
  const Pricing& p = *spec.pricing;
  const std::string region = p.region.empty() ? system.region : p.region;
  const PriceEntry* e = FindPrice(*context.catalog, kPriceInstance, "", p.label, region);
  if (e == nullptr) {
    results->cost_warnings.push_back("spec.pricing.label: no price for \"" + p.label + "\"" +
                                     (region.empty() ? "" : " in " + region) + " in the price catalog");
    return std::nullopt;
  }
  const double workers = static_cast<double>(spec.workers);
  HourlyPrice price{0, 0.0, e->currency};
  Add(&price, workers, e->on_demand_hour, e->spot_hour);
  results->prices.push_back(Used(*e, context));
  results->cost_basis = "spec.pricing.label: " + Count(workers) + " x " + e->instance_type;
  return price;
}

// Rule 3: the nodes' own instance types, whole or in part.
std::optional<HourlyPrice> NodePrice(const BenchmarkSpec& spec, const std::vector<NodeUse>& nodes,
                                     const PricingContext& context, BenchmarkResults* results) {
  HourlyPrice price;
  double charged = 0;
  bool whole = true;
  for (const NodeUse& use : nodes) {
    const NodeFacts& n = use.node;
    if (n.instance_type.empty()) {
      results->cost_warnings.push_back("node " + n.name +
                                       " has no instance type to price it by (a node.kubernetes.io/instance-type label; "
                                       "give spec.pricing a label or workerHour otherwise)");
      return std::nullopt;
    }
    const PriceEntry* e = FindPrice(*context.catalog, kPriceInstance, n.provider, n.instance_type, n.region);
    if (e == nullptr) {
      results->cost_warnings.push_back("no price for " + n.instance_type + (n.region.empty() ? "" : " in " + n.region) +
                                       " in the price catalog");
      return std::nullopt;
    }
    if (!price.currency.empty() && price.currency != e->currency) {
      results->cost_warnings.push_back("the nodes' prices are in different currencies");
      return std::nullopt;
    }
    price.currency = e->currency;
    const double share = use.exclusive ? 1.0 : RequestedShare(spec, use);
    whole = whole && use.exclusive;
    charged += share;
    Add(&price, share, e->on_demand_hour, e->spot_hour);
    AddUnique(Used(*e, context), &results->prices);
    const PriceEntry* gpu = FindPrice(*context.catalog, kPriceAccelerator, n.provider, n.accelerator_model, n.region);
    if (gpu != nullptr && spec.resources.gpu > 0) {
      const double devices = use.exclusive ? static_cast<double>(n.accelerators)
                                           : static_cast<double>(use.ranks * spec.resources.gpu);
      Add(&price, devices, gpu->on_demand_hour, gpu->spot_hour);
      AddUnique(Used(*gpu, context), &results->prices);
    }
  }
  results->cost_basis = whole ? "whole nodes: " + Count(charged) + " x " + results->system->instance_type
                              : "requested share: " + Count(charged) + " of " + std::to_string(nodes.size()) +
                                    " x " + results->system->instance_type + " (nodes shared or not known to be alone)";
  return price;
}

void Carbon(const PricingContext& context, BenchmarkResults* results) {
  if (!results->system) return;
  const CarbonIntensity* c = FindCarbonIntensity(*context.catalog, results->system->provider, results->system->region);
  if (c == nullptr) return;
  CarbonFigures carbon;
  carbon.region = results->system->region;
  carbon.grams_per_kwh = c->grams_per_kwh;
  carbon.year = c->year;
  carbon.source = c->source;
  const Figures& f = results->figures;
  const auto grams = [&](double joules) { return joules / 3.6e6 * c->grams_per_kwh; };
  if (f.energy_joules) carbon.grams = grams(*f.energy_joules);
  if (f.energy_to_accuracy_joules) carbon.grams_to_accuracy = grams(*f.energy_to_accuracy_joules);
  results->carbon = carbon;
}

}  // namespace

void PriceResults(const BenchmarkSpec& spec, const std::vector<NodeUse>& nodes, const PricingContext& context,
                  BenchmarkResults* results) {
  Carbon(context, results);
  std::optional<HourlyPrice> price;
  if (spec.pricing && (spec.pricing->worker_hour || spec.pricing->accelerator_hour)) {
    price = SpecPrice(spec, results);
  } else if (spec.pricing && !spec.pricing->label.empty()) {
    price = LabelPrice(spec, results->system.value_or(SystemIdentity{}), context, results);
  } else if (!nodes.empty() && results->system) {
    price = NodePrice(spec, nodes, context, results);
  }
  if (!price) return;
  for (const PriceUsed& p : results->prices) {
    if (!p.stale) continue;
    results->cost_warnings.push_back("stale price: " + p.instance_type + (p.region.empty() ? "" : " in " + p.region) +
                                     " is from " + p.effective_date + ", " + std::to_string(*p.age_days) +
                                     " days old (limit " + std::to_string(context.max_age_days) + "); refresh the catalog");
  }
  const Figures& f = results->figures;
  const auto cost = [](double per_hour, double seconds) { return per_hour * seconds / 3600.0; };
  results->currency = price->currency;
  results->cost_usd = cost(price->on_demand, f.run_seconds);
  if (price->spot) results->preemptible_cost_usd = cost(*price->spot, f.run_seconds);
  if (f.goal_reached.value_or(false) && f.time_to_accuracy_seconds) {
    results->cost_to_accuracy_usd = cost(price->on_demand, *f.time_to_accuracy_seconds);
    if (price->spot) results->preemptible_cost_to_accuracy_usd = cost(*price->spot, *f.time_to_accuracy_seconds);
  }
  if (f.samples && *f.samples > 0) {
    results->cost_per_million_samples = *results->cost_usd / (static_cast<double>(*f.samples) / 1e6);
  }
  if (f.language_model && f.language_model->tokens > 0) {
    results->cost_per_million_tokens = *results->cost_usd / (static_cast<double>(f.language_model->tokens) / 1e6);
  }
}

}  // namespace ergobench
