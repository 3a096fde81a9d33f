#include "runner/metrics/energy_recorder.h"

namespace ergobench {

void EnergyRecorder::Export(const std::vector<ChannelEnergy>& channels) {
  for (const ChannelEnergy& c : channels) metrics_->SetEnergy(c.channel.device, c.channel.domain, c.joules * share_);
  for (const auto& [device, watts] : PowerByDevice(channels)) metrics_->SetPower(device, watts * share_);
}

void EnergyRecorder::Start(std::chrono::milliseconds interval) {
  if (interval.count() <= 0 || !sampler_->measuring()) return;
  start_ = EnergySampler::Clock::now();
  sampler_->Start(interval, [this](const std::vector<ChannelEnergy>& channels) { Export(channels); });
  started_ = true;
}

void EnergyRecorder::OnEvent(const std::string& event_type, const std::string& key) {
  if (!started_) return;
  // The sample that bounds the region is taken at the mark itself, so that short runs are
  // measured to the edge and not to the nearest 100 ms.
  if (event_type == "INTERVAL_START" && key == "run_start") {
    run_start_ = EnergySampler::Clock::now();
    sampler_->SampleAt(*run_start_);
  } else if (event_type == "INTERVAL_END" && key == "run_stop") {
    run_stop_ = EnergySampler::Clock::now();
    sampler_->SampleAt(*run_stop_);
  }
}

void EnergyRecorder::Finish(Figures* figures) {
  if (!started_) return;
  sampler_->Stop();
  started_ = false;
  Export(sampler_->Channels());
  auto share = [this](std::optional<double> joules) { return joules ? std::optional(*joules * share_) : joules; };
  figures->energy_joules_whole_run = share(sampler_->TotalJoules());
  if (figures->energy_joules_whole_run) figures->energy_shared_with = sampler_->OthersOnNode();
  if (run_start_ && run_stop_) figures->energy_joules = share(sampler_->JoulesBetween(*run_start_, *run_stop_));
  if (run_start_ && figures->time_to_accuracy_seconds && figures->goal_reached.value_or(false)) {
    const auto reached = *run_start_ + std::chrono::duration_cast<EnergySampler::Clock::duration>(
                                           std::chrono::duration<double>(*figures->time_to_accuracy_seconds));
    figures->energy_to_accuracy_joules = share(sampler_->JoulesBetween(*run_start_, reached));
  }
}

}  // namespace ergobench
