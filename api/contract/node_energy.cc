#include "api/contract/node_energy.h"

#include "base/json_reader.h"

namespace ergobench {

nlohmann::json EncodeNodeEnergyReport(const NodeEnergyReport& report) {
  nlohmann::json channels = nlohmann::json::array();
  for (const NodeEnergyChannel& c : report.channels) {
    channels.push_back({{"device", c.device}, {"domain", c.domain}, {"inTotal", c.in_total}, {"joules", c.joules}});
  }
  return {{"node", report.node},  {"intervalMs", report.interval_ms}, {"meters", report.meters},
          {"channels", channels}, {"podsKnown", report.pods_known},   {"otherPods", report.other_pods}};
}

namespace {

template <typename T, typename ReadOne>
std::vector<T> ReadList(ObjectReader* reader, const std::string& key, ReadOne read_one) {
  std::vector<T> out;
  const nlohmann::json* list = reader->Raw(key);
  if (list == nullptr) return out;
  if (!list->is_array()) {
    reader->errors()->Add(reader->PathOf(key), "must be a list, got " + ShowJson(*list));
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    ObjectReader item(&(*list)[i], IndexPath(reader->PathOf(key), i), reader->errors());
    out.push_back(read_one(item));
  }
  return out;
}

}  // namespace

StatusOr<NodeEnergyReport> DecodeNodeEnergyReport(const nlohmann::json& json) {
  FieldErrors errors;
  NodeEnergyReport report;
  {
    ObjectReader r(&json, "", &errors);
    r.String("node", &report.node);
    r.Int("intervalMs", &report.interval_ms);
    if (const nlohmann::json* meters = r.Raw("meters")) report.meters = *meters;
    report.channels = ReadList<NodeEnergyChannel>(&r, "channels", [](ObjectReader& c) {
      NodeEnergyChannel channel;
      c.String("device", &channel.device);
      c.String("domain", &channel.domain);
      c.Bool("inTotal", &channel.in_total);
      c.Number("joules", &channel.joules);
      return channel;
    });
    r.Bool("podsKnown", &report.pods_known);
    r.Strings("otherPods", &report.other_pods);
  }
  if (!errors.empty()) return Status::InvalidArgument("node energy report: " + errors.Joined());
  return report;
}

}  // namespace ergobench
