#include "api/pricing/price_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "api/pricing/price_catalog_data.h"
#include "api/v1alpha1/load.h"
#include "base/check.h"
#include "base/json_reader.h"
#include "base/rfc3339.h"
#include "base/text_scan.h"
#include "base/yaml_json.h"

namespace ergobench {
namespace {

namespace fs = std::filesystem;

// YYYY-MM-DD, a day of the calendar.
bool IsDate(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  const std::string year = text.substr(0, 4), month = text.substr(5, 2), day = text.substr(8, 2);
  if (!AllOf(year, IsAsciiDigit) || !AllOf(month, IsAsciiDigit) || !AllOf(day, IsAsciiDigit)) return false;
  const std::chrono::year_month_day date{std::chrono::year(std::stoi(year)), std::chrono::month(std::stoul(month)),
                                         std::chrono::day(std::stoul(day))};
  return date.ok();
}

PriceEntry ReadPrice(const nlohmann::json& json, const std::string& path, const std::string& origin,
                     FieldErrors* errors) {
  ObjectReader r(&json, path, errors);
  PriceEntry e;
  r.String("provider", &e.provider);
  r.String("instanceType", &e.instance_type);
  r.String("kind", &e.kind);
  r.String("region", &e.region);
  r.String("currency", &e.currency);
  r.Number("onDemandHour", &e.on_demand_hour);
  r.Number("spotHour", &e.spot_hour);
  if (const nlohmann::json* accelerator = r.Object("accelerator")) {
    ObjectReader a(accelerator, r.PathOf("accelerator"), errors);
    a.String("model", &e.accelerator_model);
    a.Int("count", &e.accelerator_count);
  }
  r.String("effectiveDate", &e.effective_date);
  r.String("source", &e.source);
  e.origin = origin;
  if (e.instance_type.empty()) errors->Add(r.PathOf("instanceType"), "is required");
  if (e.kind != kPriceInstance && e.kind != kPriceAccelerator) {
    errors->Add(r.PathOf("kind"), "must be instance or accelerator, got \"" + e.kind + "\"");
  }
  if (!AllOf(e.currency, IsAsciiUpper, 3)) {
    errors->Add(r.PathOf("currency"), "must be a three-letter ISO 4217 code such as USD");
  }
  // !(x > 0) holds for NaN too; infinity is no price.
  if (!(e.on_demand_hour > 0) || std::isinf(e.on_demand_hour)) {
    errors->Add(r.PathOf("onDemandHour"), "must be a positive price per hour");
  }
  if (e.spot_hour && (!(*e.spot_hour > 0) || std::isinf(*e.spot_hour))) {
    errors->Add(r.PathOf("spotHour"), "must be a positive price per hour");
  }
  if (!IsDate(e.effective_date)) {
    errors->Add(r.PathOf("effectiveDate"), "is required, as YYYY-MM-DD: when the figure was the price");
  }
  if (e.source.empty()) errors->Add(r.PathOf("source"), "is required: where the figure can be checked");
  return e;
}

CarbonIntensity ReadCarbon(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  ObjectReader r(&json, path, errors);
  CarbonIntensity c;
  r.String("provider", &c.provider);
  r.String("region", &c.region);
  r.Number("gramsPerKwh", &c.grams_per_kwh);
  r.Int("year", &c.year);
  r.String("source", &c.source);
  if (c.region.empty()) errors->Add(r.PathOf("region"), "is required");
  if (!(c.grams_per_kwh >= 0)) errors->Add(r.PathOf("gramsPerKwh"), "must be 0 or more");
  if (c.year < 1990 || c.year > 2100) errors->Add(r.PathOf("year"), "is required: the year the figure describes");
  if (c.source.empty()) errors->Add(r.PathOf("source"), "is required: where the figure can be checked");
  return c;
}

auto PriceKey(const PriceEntry& e) { return std::tie(e.provider, e.kind, e.instance_type, e.region); }
auto CarbonKey(const CarbonIntensity& c) { return std::tie(c.provider, c.region); }

template <typename T, typename Key>
void Merge(std::vector<T>* base, std::vector<T> extension, Key key) {
  for (T& entry : extension) {
    auto same = std::find_if(base->begin(), base->end(), [&](const T& b) { return key(b) == key(entry); });
    if (same != base->end()) {
      *same = std::move(entry);
    } else {
      base->push_back(std::move(entry));
    }
  }
}

bool ProviderMatches(const std::string& entry, std::string_view wanted) {
  return entry.empty() || wanted.empty() || entry == wanted;
}

}  // namespace

StatusOr<PriceCatalog> ParsePriceCatalog(std::string_view yaml, const std::string& origin) {
  ASSIGN_OR_RETURN(const std::vector<nlohmann::json> documents, ParseYamlDocuments(yaml, origin));
  if (documents.size() != 1 || !documents[0].is_object()) {
    return Status::InvalidArgument(origin + ": a price catalog is one mapping with prices: and carbonIntensity:");
  }
  FieldErrors errors;
  PriceCatalog catalog;
  catalog.origins.push_back(origin);
  ObjectReader top(&documents[0], "", &errors);
  for (const auto& [key, out] : {std::pair{"prices", 0}, std::pair{"carbonIntensity", 1}}) {
    const nlohmann::json* list = top.Raw(key);
    if (list == nullptr) continue;
    if (!list->is_array()) {
      errors.Add(key, "must be a list, got " + JsonTypeName(*list));
      continue;
    }
    for (size_t i = 0; i < list->size(); ++i) {
      if (out == 0) {
        catalog.prices.push_back(ReadPrice((*list)[i], IndexPath(key, i), origin, &errors));
      } else {
        catalog.carbon.push_back(ReadCarbon((*list)[i], IndexPath(key, i), &errors));
      }
    }
  }
  if (!errors.empty()) return Status::InvalidArgument(origin + ": " + errors.ToString());
  return catalog;
}

void ExtendPriceCatalog(PriceCatalog* base, PriceCatalog extension) {
  Merge(&base->prices, std::move(extension.prices), [](const PriceEntry& e) { return PriceKey(e); });
  Merge(&base->carbon, std::move(extension.carbon), [](const CarbonIntensity& c) { return CarbonKey(c); });
  base->origins.insert(base->origins.end(), extension.origins.begin(), extension.origins.end());
}

StatusOr<PriceCatalog> LoadPriceCatalogDir(const std::string& dir) {
  std::error_code error;
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    // A ConfigMap volume keeps its real files in ..data/ and links them from the top.
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") || entry.path().extension() != ".yaml") continue;
    if (fs::is_regular_file(entry.path())) files.push_back(entry.path().string());
  }
  if (error) return Status::NotFound(dir + ": cannot read the price catalog folder: " + error.message());
  if (files.empty()) return Status::NotFound(dir + ": holds no .yaml price catalog");
  std::sort(files.begin(), files.end());
  PriceCatalog catalog;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(const std::string text, ReadFile(file));
    ASSIGN_OR_RETURN(PriceCatalog part, ParsePriceCatalog(text, file));
    ExtendPriceCatalog(&catalog, std::move(part));
  }
  return catalog;
}

const PriceCatalog& BuiltInPriceCatalog() {
  static const PriceCatalog* const catalog = [] {
    StatusOr<PriceCatalog> parsed = ParsePriceCatalog(kBuiltInPriceCatalog, "built-in price-catalog.yaml");
    if (!parsed.ok()) std::fprintf(stderr, "%s\n", parsed.status().ToString().c_str());
    ERGOBENCH_CHECK(parsed.ok());  // the build's own file, which a test reads too
    return new PriceCatalog(std::move(*parsed));
  }();
  return *catalog;
}

const PriceEntry* FindPrice(const PriceCatalog& catalog, std::string_view kind, std::string_view provider,
                            std::string_view instance_type, std::string_view region) {
  const PriceEntry* any_region = nullptr;
  for (const PriceEntry& e : catalog.prices) {
    if (e.kind != kind || e.instance_type != instance_type || !ProviderMatches(e.provider, provider)) continue;
    if (!region.empty() && e.region == region) return &e;
    if (e.region.empty() && any_region == nullptr) any_region = &e;
  }
  return any_region;
}

const CarbonIntensity* FindCarbonIntensity(const PriceCatalog& catalog, std::string_view provider,
                                           std::string_view region) {
  if (region.empty()) return nullptr;
  for (const CarbonIntensity& c : catalog.carbon) {
    if (c.region == region && ProviderMatches(c.provider, provider)) return &c;
  }
  return nullptr;
}

std::optional<int64_t> PriceAgeDays(const PriceEntry& entry, std::chrono::system_clock::time_point now) {
  const auto date = ParseRfc3339(entry.effective_date + "T00:00:00Z");
  if (!date) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::hours>(now - *date).count() / 24;
}

// Until the folder reads well, the built-in catalog: one unreadable at start must not price
// every run at nothing.
PriceCatalogSource::PriceCatalogSource(std::string dir) : dir_(std::move(dir)), catalog_(BuiltInPriceCatalog()) {}

std::string PriceCatalogSource::Fingerprint() const {
  std::string out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir_, error)) {
    const fs::path path = entry.path();
    std::error_code ignored;
    out += path.filename().string() + ":" + std::to_string(fs::file_size(path, ignored)) + ":" +
           std::to_string(fs::last_write_time(path, ignored).time_since_epoch().count()) + ";";
  }
  return error ? "unreadable: " + error.message() : out;
}

PriceCatalog PriceCatalogSource::Current() {
  if (dir_.empty()) return BuiltInPriceCatalog();
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string fingerprint = Fingerprint();
  if (fingerprint == fingerprint_) return catalog_;
  fingerprint_ = fingerprint;
  StatusOr<PriceCatalog> loaded = LoadPriceCatalogDir(dir_);
  if (!loaded.ok()) {
    error_ = loaded.status().message();
    return catalog_;
  }
  catalog_ = std::move(*loaded);
  error_.clear();
  return catalog_;
}

std::string PriceCatalogSource::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

}  // namespace ergobench
