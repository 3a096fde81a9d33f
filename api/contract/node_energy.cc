#include "api/contract/node_energy.h"

#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {
namespace {

constexpr Written kAlways = Written::kAlways;

const JsonFields<NodeEnergyReport>& ReportFields() {
  using C = NodeEnergyChannel;
  static const JsonFields<C> channel = JsonFields<C>()
                                           .Add("device", &C::device, kAlways)
                                           .Add("domain", &C::domain, kAlways)
                                           .Add("inTotal", &C::in_total, kAlways)
                                           .Add("joules", &C::joules, kAlways);
  using R = NodeEnergyReport;
  static const JsonFields<R> fields =
      JsonFields<R>()
          .Add("node", &R::node, kAlways)
          .Add("intervalMs", &R::interval_ms, kAlways)
          .Add("sampleAgeMs", &R::sample_age_ms, kAlways)
          .Add("sampleMonotonicNs", &R::sample_monotonic_ns)
          .Json("meters", &R::meters, JsonShape::kList, kAlways)
          .List("channels", &R::channels, channel, [](const R&) { return true; })
          .Add("podsKnown", &R::pods_known, kAlways)
          .Add("otherPods", &R::other_pods, kAlways);
  return fields;
}

}  // namespace

nlohmann::json EncodeNodeEnergyReport(const NodeEnergyReport& report) { return ReportFields().Encode(report); }

StatusOr<NodeEnergyReport> DecodeNodeEnergyReport(const nlohmann::json& json) {
  FieldErrors errors;
  NodeEnergyReport report = ReportFields().Decode(&json, "", &errors);
  if (!errors.empty()) return Status::InvalidArgument("node energy report: " + errors.Joined());
  if (report.sample_age_ms < 0 || report.sample_age_ms > kMaxSampleAgeMs) {
    return Status::InvalidArgument("node energy report: sampleAgeMs: want 0 to " + std::to_string(kMaxSampleAgeMs) +
                                   " milliseconds, got " + std::to_string(report.sample_age_ms));
  }
  if (report.sample_monotonic_ns && *report.sample_monotonic_ns < 0) {
    return Status::InvalidArgument("node energy report: sampleMonotonicNs: want 0 or more nanoseconds, got " +
                                   std::to_string(*report.sample_monotonic_ns));
  }
  return report;
}

}  // namespace ergobench
