// The price catalog: what a platform team pays for each instance type and accelerator, per
// region, on demand and on spot, each figure dated and sourced; and the grid's carbon intensity
// per region, for the emissions of a run. The operator reads it from a folder (the chart's
// ConfigMap, which a team replaces or extends) and re-reads it when a file changes; `ergobench`
// reads the same folder, or the catalog built in from charts/ergobench/files/price-catalog.yaml.
//
//   prices:            - {provider, instanceType, kind, region, currency, onDemandHour,
//                         spotHour, accelerator: {model, count}, effectiveDate, source}
//   carbonIntensity:   - {provider, region, gramsPerKwh, year, source}
//
// Files are read in name order; an entry of a later file replaces one of an earlier file with
// the same key (provider, kind, instance type, region), so a team's file extends the shipped one.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

inline constexpr char kPriceInstance[] = "instance";
inline constexpr char kPriceAccelerator[] = "accelerator";  // attached per device (GCP's GPUs)

struct PriceEntry {
  std::string provider;       // aws | gcp | azure; empty: any
  std::string instance_type;  // node.kubernetes.io/instance-type, or the accelerator's label
  std::string kind = kPriceInstance;
  std::string region;         // empty: any region
  std::string currency;
  double on_demand_hour = 0;
  std::optional<double> spot_hour;  // spot / preemptible
  std::string accelerator_model;    // of an instance that comes with accelerators
  int64_t accelerator_count = 0;
  std::string effective_date;  // YYYY-MM-DD: when the figure was the list price
  std::string source;          // where it was read
  std::string origin;          // the catalog file it came from
};

struct CarbonIntensity {
  std::string provider;
  std::string region;
  double grams_per_kwh = 0;  // gCO2e per kWh of the region's grid
  int64_t year = 0;          // the year the figure describes
  std::string source;
};

struct PriceCatalog {
  std::vector<PriceEntry> prices;
  std::vector<CarbonIntensity> carbon;
  std::vector<std::string> origins;  // the files read, for messages
};

// One catalog file. Every problem is reported with its field path.
StatusOr<PriceCatalog> ParsePriceCatalog(std::string_view yaml, const std::string& origin);
// `extension`'s entries replace `base`'s of the same key and add the rest.
void ExtendPriceCatalog(PriceCatalog* base, PriceCatalog extension);
// Every *.yaml file of `dir`, in name order, merged.
StatusOr<PriceCatalog> LoadPriceCatalogDir(const std::string& dir);
// The catalog built in from charts/ergobench/files/price-catalog.yaml.
const PriceCatalog& BuiltInPriceCatalog();

// The price of `instance_type` (of `kind`) in `region`, from `provider` when known: the entry of
// that region, else one that names no region. nullptr when there is none.
const PriceEntry* FindPrice(const PriceCatalog& catalog, std::string_view kind, std::string_view provider,
                            std::string_view instance_type, std::string_view region);
const CarbonIntensity* FindCarbonIntensity(const PriceCatalog& catalog, std::string_view provider,
                                           std::string_view region);

// Whole days from the entry's effective date to `now`; nullopt when the date does not parse.
std::optional<int64_t> PriceAgeDays(const PriceEntry& entry, std::chrono::system_clock::time_point now);

// A catalog folder that is re-read when one of its files changes (a ConfigMap volume swaps its
// files when the ConfigMap is edited). A folder that fails to read keeps the last good catalog
// (at first, the built-in one), and error() says why. An empty path is the built-in catalog.
// Thread-safe.
class PriceCatalogSource {
 public:
  explicit PriceCatalogSource(std::string dir);

  PriceCatalog Current();
  // Why the last read failed; empty when it did not.
  std::string error() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string Fingerprint() const;  // names, sizes and times of the folder's files

  const std::string dir_;
  mutable std::mutex mutex_;
  std::string fingerprint_;
  PriceCatalog catalog_;
  std::string error_;
};

}  // namespace ergobench
