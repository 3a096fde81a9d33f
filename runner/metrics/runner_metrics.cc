#include "runner/metrics/runner_metrics.h"

#include <array>

#include <map>
#include <mutex>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench {

struct RunnerMetrics::Families {
  explicit Families(const MetricLabels& l)
      : registry(std::make_shared<prometheus::Registry>()),
        labels({{"benchmark", l.benchmark},
                {"task", l.task},
                {"rank", std::to_string(l.rank)},
                {"world_size", std::to_string(l.world_size)},
                {"backend", l.backend}}),
        samples(Counter("ergobench_samples_total", "Training samples processed by this rank.")),
        tokens(Counter("ergobench_tokens_total", "Training tokens processed by this rank.")),
        data_bytes(Counter("ergobench_data_read_bytes_total",
                           "Bytes of the data set's files this rank's data path read (compressed where they are).")),
        collective_seconds(Counter("ergobench_collective_seconds_total",
                                   "Time the gradient collectives took, launch to completion, including what ran "
                                   "beside backward; the phase communication counts only the wait.")),
        phase_family(prometheus::BuildCounter()
                         .Name("ergobench_phase_seconds_total")
                         .Help("Wall time spent in each phase of a step, by phase.")
                         .Labels(labels)
                         .Register(*registry)),
        step_duration(StepDuration()),
        build_info(prometheus::BuildGauge()
                       .Name("ergobench_build_info")
                       .Help("Always 1; the runner's version and component as labels.")
                       .Labels(labels)
                       .Register(*registry)
                       .Add({{"version", ErgobenchVersion()}, {"component", "runner"}})),
        epoch(Gauge("ergobench_epoch", "Current training epoch (1-based).")),
        train_loss(Gauge("ergobench_train_loss", "Mean training loss of the last epoch.")),
        eval_accuracy(Gauge("ergobench_eval_accuracy_ratio", "Validation accuracy of the last evaluation.")),
        eval_loss(Gauge("ergobench_eval_loss", "Validation loss of the last evaluation (language models: nats per token).")),
        eval_bleu(Gauge("ergobench_eval_bleu", "Corpus BLEU of the last evaluation's translations (sacreBLEU's, 0 to 100).")),
        eval_mae(Gauge("ergobench_eval_mean_absolute_error",
                       "Mean absolute error of the last evaluation's regression (cosmoflow: over its four parameters).")),
        loss_scale(Gauge("ergobench_loss_scale", "Dynamic loss scale of mixed precision, after the last step.")),
        skipped_updates(Counter("ergobench_skipped_updates_total",
                                "Updates skipped for an inf or NaN gradient norm under loss scaling.")),
        progress_ratio(Gauge("ergobench_progress_ratio",
                             "Share of the most work the run may do that is done (epochs up to maxEpochs, steps, sizes).")),
        remaining_family(prometheus::BuildGauge()
                             .Name("ergobench_progress_remaining_seconds")
                             .Help("Estimated time left; basis=work: the work left at its rate so far, basis=goal: "
                                   "when the goal metric's trend over the last two evaluations reaches the target.")
                             .Labels(labels)
                             .Register(*registry)),
        goal_reached(Gauge("ergobench_goal_reached", "1 once an evaluation reached the goal.")),
        flops_per_sample(Gauge("ergobench_model_flops_per_sample",
                               "Model FLOPs of one training sample: 3 x its forward's matrix products and convolutions.")),
        peak_flops(Gauge("ergobench_peak_flops_per_second",
                         "The peak MFU divides by: the rank's threads' measured FMA rate, or its GPU's datasheet peak.")),
        artifacts_offered(Gauge("ergobench_artifacts_offered",
                                "1 once the run has ended and its output files are served on /artifacts.")),
        bus_bandwidth_family(prometheus::BuildGauge()
                                 .Name("ergobench_allreduce_bus_bandwidth_bytes_per_second")
                                 .Help("All-reduce bus bandwidth (nccl-tests definition) by message size.")
                                 .Labels(labels)
                                 .Register(*registry)),
        energy_family(prometheus::BuildCounter()
                          .Name("ergobench_energy_joules_total")
                          .Help("Energy used by this rank's devices, by device and domain.")
                          .Labels(labels)
                          .Register(*registry)),
        power_family(prometheus::BuildGauge()
                         .Name("ergobench_power_watts")
                         .Help("Power drawn by a device over the last sampling interval.")
                         .Labels(labels)
                         .Register(*registry)),
        memory_family(prometheus::BuildGauge()
                          .Name("ergobench_memory_bytes")
                          .Help("Memory of this rank by kind: peak_resident (RSS), peak_tensor (torch's CPU "
                                "allocator over the training steps) and, at that peak, parameters, gradients, "
                                "optimizer_state and activations.")
                          .Labels(labels)
                          .Register(*registry)) {
    build_info.Set(1);
    for (TrainingPhase phase : kTrainingPhases) {
      phase_seconds[static_cast<size_t>(phase)] = &phase_family.Add({{"phase", PhaseName(phase)}});
    }
  }

  prometheus::Counter& Counter(const std::string& name, const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Labels(labels).Register(*registry).Add({});
  }
  prometheus::Histogram& StepDuration() {
    return prometheus::BuildHistogram()
        .Name("ergobench_step_duration_seconds")
        .Help("Duration of one training step.")
        .Labels(labels)
        .Register(*registry)
        .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                         2.5, 5, 10, 30});
  }
  prometheus::Gauge& Gauge(const std::string& name, const std::string& help) {
    return prometheus::BuildGauge().Name(name).Help(help).Labels(labels).Register(*registry).Add({});
  }

  std::shared_ptr<prometheus::Registry> registry;
  std::map<std::string, std::string> labels;
  prometheus::Counter& samples;
  prometheus::Counter& tokens;
  prometheus::Counter& data_bytes;
  prometheus::Counter& collective_seconds;
  prometheus::Family<prometheus::Counter>& phase_family;
  std::array<prometheus::Counter*, kTrainingPhases.size()> phase_seconds{};  // by TrainingPhase
  prometheus::Histogram& step_duration;
  prometheus::Gauge& build_info;
  prometheus::Gauge& epoch;
  prometheus::Gauge& train_loss;
  prometheus::Gauge& eval_accuracy;
  prometheus::Gauge& eval_loss;
  prometheus::Gauge& eval_bleu;
  prometheus::Gauge& eval_mae;
  prometheus::Gauge& loss_scale;
  prometheus::Counter& skipped_updates;
  prometheus::Gauge& progress_ratio;
  prometheus::Family<prometheus::Gauge>& remaining_family;
  prometheus::Gauge* remaining = nullptr;  // the series of the basis the last estimate had
  prometheus::Gauge& goal_reached;
  prometheus::Gauge& flops_per_sample;
  prometheus::Gauge& peak_flops;
  prometheus::Gauge& artifacts_offered;
  prometheus::Family<prometheus::Gauge>& bus_bandwidth_family;
  prometheus::Family<prometheus::Counter>& energy_family;
  prometheus::Family<prometheus::Gauge>& power_family;
  prometheus::Family<prometheus::Gauge>& memory_family;
};

RunnerMetrics::RunnerMetrics(const MetricLabels& labels) : families_(std::make_unique<Families>(labels)) {}
RunnerMetrics::~RunnerMetrics() = default;

void RunnerMetrics::AddPhaseSeconds(TrainingPhase phase, double seconds) {
  families_->phase_seconds[static_cast<size_t>(phase)]->Increment(seconds);
}
void RunnerMetrics::AddCollectiveSeconds(double seconds) { families_->collective_seconds.Increment(seconds); }
void RunnerMetrics::ObserveStep(double seconds) { families_->step_duration.Observe(seconds); }
void RunnerMetrics::AddSamples(double samples) { families_->samples.Increment(samples); }
void RunnerMetrics::AddTokens(double tokens) { families_->tokens.Increment(tokens); }
void RunnerMetrics::AddDataBytes(double bytes) { families_->data_bytes.Increment(bytes); }
void RunnerMetrics::SetEpoch(int64_t epoch) { families_->epoch.Set(static_cast<double>(epoch)); }
void RunnerMetrics::SetTrainLoss(double loss) { families_->train_loss.Set(loss); }
void RunnerMetrics::SetEvalAccuracy(double accuracy) { families_->eval_accuracy.Set(accuracy); }
void RunnerMetrics::SetEvalLoss(double loss) { families_->eval_loss.Set(loss); }
void RunnerMetrics::SetEvalBleu(double bleu) { families_->eval_bleu.Set(bleu); }
void RunnerMetrics::SetEvalMeanAbsoluteError(double mae) { families_->eval_mae.Set(mae); }
void RunnerMetrics::SetLossScaling(double scale, bool skipped) {
  families_->loss_scale.Set(scale);
  if (skipped) families_->skipped_updates.Increment();
}
void RunnerMetrics::SetGoalReached(bool reached) { families_->goal_reached.Set(reached ? 1 : 0); }
void RunnerMetrics::SetProgress(const ProgressEstimate& estimate) {
  if (estimate.done_fraction) families_->progress_ratio.Set(*estimate.done_fraction);
  prometheus::Gauge* remaining = nullptr;
  if (estimate.seconds_left) remaining = &families_->remaining_family.Add({{"basis", estimate.estimated_from}});
  // One series at a time: a basis that no longer holds must not linger beside the new one.
  if (families_->remaining != nullptr && families_->remaining != remaining) {
    families_->remaining_family.Remove(families_->remaining);
  }
  families_->remaining = remaining;
  if (remaining != nullptr) remaining->Set(*estimate.seconds_left);
}
void RunnerMetrics::SetFlopsPerSample(double flops) { families_->flops_per_sample.Set(flops); }
void RunnerMetrics::SetPeakFlops(double flops_per_second) { families_->peak_flops.Set(flops_per_second); }
void RunnerMetrics::SetArtifactsOffered() { families_->artifacts_offered.Set(1); }
void RunnerMetrics::SetBusBandwidth(int64_t bytes, double bytes_per_second) {
  families_->bus_bandwidth_family.Add({{"bytes", std::to_string(bytes)}}).Set(bytes_per_second);
}

void RunnerMetrics::SetEnergy(const std::string& device, const std::string& domain, double joules) {
  prometheus::Counter& counter = families_->energy_family.Add({{"device", device}, {"domain", domain}});
  if (joules > counter.Value()) counter.Increment(joules - counter.Value());
}
void RunnerMetrics::SetPower(const std::string& device, double watts) {
  families_->power_family.Add({{"device", device}}).Set(watts);
}

void RunnerMetrics::SetMemory(const MemoryFigures& m) {
  const std::pair<const char*, int64_t> kinds[] = {
      {"peak_resident", m.peak_resident_bytes}, {"peak_tensor", m.peak_tensor_bytes},
      {"parameters", m.parameter_bytes},        {"gradients", m.gradient_bytes},
      {"optimizer_state", m.optimizer_state_bytes}, {"activations", m.activation_bytes}};
  for (const auto& [kind, bytes] : kinds) {
    families_->memory_family.Add({{"kind", kind}}).Set(static_cast<double>(bytes));
  }
  if (m.peak_reserved_bytes) {
    families_->memory_family.Add({{"kind", "peak_reserved"}}).Set(static_cast<double>(*m.peak_reserved_bytes));
  }
}

std::string RunnerMetrics::Render() const {
  return prometheus::TextSerializer().Serialize(families_->registry->Collect());
}

}  // namespace ergobench
