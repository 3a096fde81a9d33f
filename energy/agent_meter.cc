#include "energy/agent_meter.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <set>

#include "api/contract/node_energy.h"
#include "base/http_get.h"

namespace ergobench {
namespace {

class AgentMeter final : public EnergyMeter {
 public:
  AgentMeter(AgentAddress address, std::string own_namespace, std::string own_benchmark)
      : address_(std::move(address)), own_namespace_(std::move(own_namespace)), own_benchmark_(std::move(own_benchmark)) {
    info_.name = "agent";
    StatusOr<NodeEnergyReport> report = Fetch();
    if (!report.ok()) {
      info_.reason = report.status().message();
      return;
    }
    for (const NodeEnergyChannel& c : report->channels) info_.channels.push_back({c.device, c.domain, c.in_total});
    info_.refresh = std::chrono::milliseconds(report->interval_ms);
    info_.available = !info_.channels.empty();
    if (!info_.available) info_.reason = "the node energy agent on " + report->node + " has no meter that reads";
    Note(*report);
  }

  const MeterInfo& info() const override { return info_; }

  std::vector<ChannelSample> Sample() override {
    std::vector<ChannelSample> samples(info_.channels.size());
    const auto asked = std::chrono::steady_clock::now();
    StatusOr<NodeEnergyReport> report = Fetch();
    if (!report.ok()) return samples;  // a failed read: both fields empty
    const auto received = std::chrono::steady_clock::now();
    const std::chrono::nanoseconds taken_before = asked - TakenAt(*report, asked, received);
    for (size_t i = 0; i < info_.channels.size(); ++i) {
      samples[i].taken_before = taken_before;
      for (const NodeEnergyChannel& c : report->channels) {
        if (c.device == info_.channels[i].device && c.domain == info_.channels[i].domain) {
          samples[i].energy_joules = c.joules;
        }
      }
    }
    Note(*report);
    return samples;
  }

  std::optional<std::vector<std::string>> OthersOnNode() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!pods_known_) return std::nullopt;
    return std::vector<std::string>(others_.begin(), others_.end());
  }

 private:
  // When the agent took the readings it answered with. It answered within the round trip, its
  // readings sampleAgeMs old: on the node's monotonic clock, which a rank on the same kernel
  // shares, at sampleMonotonicNs exactly (the answer's time in transit, 300 ms once on a busy
  // node, does not count); otherwise (a pod in a VM of its own, an older agent) by their age
  // from the round trip's middle, half of it off at most. sampleAgeMs is whole milliseconds.
  static std::chrono::steady_clock::time_point TakenAt(const NodeEnergyReport& report,
                                                       std::chrono::steady_clock::time_point asked,
                                                       std::chrono::steady_clock::time_point received) {
    const std::chrono::milliseconds age(report.sample_age_ms);  // a day at most (decoded)
    if (report.sample_monotonic_ns) {
      // Answered (taken + age, to the millisecond below) within the round trip; the sums on the
      // right, where nothing overflows, whatever number the agent sent.
      const std::chrono::nanoseconds taken(*report.sample_monotonic_ns);
      if (taken <= received.time_since_epoch() - age &&
          taken >= asked.time_since_epoch() - age - std::chrono::milliseconds(1)) {
        return std::chrono::steady_clock::time_point(taken);
      }
    }
    return asked + (received - asked) / 2 - age;
  }

  StatusOr<NodeEnergyReport> Fetch() const {
    const std::string where = "node energy agent at " + address_.host + ":" + std::to_string(address_.port);
    // Names are DNS labels (validated): nothing in them needs escaping in a query.
    const std::string path = "/energy?namespace=" + own_namespace_ + "&benchmark=" + own_benchmark_;
    StatusOr<std::string> body = HttpGet(address_.host, address_.port, path);
    if (!body.ok()) return Status::Unavailable(where + ": " + body.status().message());
    const nlohmann::json json = nlohmann::json::parse(*body, nullptr, false);
    if (json.is_discarded()) return Status::Unavailable(where + ": GET /energy is not JSON");
    StatusOr<NodeEnergyReport> report = DecodeNodeEnergyReport(json);
    if (!report.ok()) return Status::Unavailable(where + ": " + report.status().message());
    return report;
  }

  // Keeps the pods outside this rank's Benchmark, by the agent's opaque names: every one seen
  // while the meter sampled.
  void Note(const NodeEnergyReport& report) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!report.pods_known) return;
    pods_known_ = true;
    others_.insert(report.other_pods.begin(), report.other_pods.end());
  }

  AgentAddress address_;
  std::string own_namespace_;
  std::string own_benchmark_;
  MeterInfo info_;
  mutable std::mutex mutex_;
  bool pods_known_ = false;
  std::set<std::string> others_;
};

}  // namespace

StatusOr<AgentAddress> ParseAgentAddress(const std::string& text) {
  const size_t colon = text.rfind(':');
  AgentAddress address;
  if (colon == std::string::npos || colon == 0) {
    return Status::InvalidArgument("--energy-agent: want HOST:PORT, got \"" + text + "\"");
  }
  address.host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (error != std::errc() || end != port.data() + port.size() || address.port <= 0 || address.port > 65535) {
    return Status::InvalidArgument("--energy-agent: want a port from 1 to 65535 after the colon, got \"" + text + "\"");
  }
  return address;
}

std::unique_ptr<EnergyMeter> OpenAgentMeter(const AgentAddress& address, const std::string& own_namespace,
                                            const std::string& own_benchmark) {
  return std::make_unique<AgentMeter>(address, own_namespace, own_benchmark);
}

}  // namespace ergobench
