// The learning-rate schedule of MLBench's reference recipes (tasks 1a and 2a): the base
// rate is scaled linearly to base·k over the first log2(k) epochs (per step, Goyal et al.'s
// gradual warm-up), then divided by 10 each time the validation loss fails to improve for
// `patience` consecutive epochs.
#pragma once

#include <cstdint>
#include <vector>

namespace ergobench {

class LrSchedule {
 public:
  LrSchedule(double base_lr, int world_size, double plateau_factor = 0.1, int plateau_patience = 2);

  // The rate `epoch_progress` epochs into training (2.5: halfway through the third epoch).
  double At(double epoch_progress) const;
  // Feeds one epoch's validation loss; returns true when the rate was reduced.
  bool OnValidationLoss(double loss);

  double warmup_epochs() const { return warmup_epochs_; }
  double plateau_multiplier() const { return multiplier_; }

 private:
  double base_lr_;
  double target_lr_;
  double warmup_epochs_;
  double factor_;
  int patience_;
  double multiplier_ = 1.0;
  double best_loss_;
  int bad_epochs_ = 0;
};

// The GPT recipes' schedule (GPT-2, Megatron-LM, CARAML): linear warm-up to `peak` over
// `warmup_steps` (the first step already takes peak/warmup_steps), then a half cosine down
// to `floor` at `decay_steps`, and `floor` after. Steps count from 0.
double WarmupCosineLr(int64_t step, int64_t warmup_steps, int64_t decay_steps, double peak, double floor);

// MLPerf ResNet's schedule (its reference's "polynomial" learning rate): linear warm-up from
// 0 to `peak` over `warmup_epochs`, then (peak − end)·(1 − (t − w)/(T − w))^power + end down to
// `end` at `total_epochs` T, and `end` after (MLPerf's closed rules fix end at 1e-4).
// `epoch_progress` is where the step ends, so the first step does not waste itself at rate 0.
double WarmupPolynomialLr(double epoch_progress, double warmup_epochs, double total_epochs, double peak, double power,
                          double end = 0);

// MLPerf HPC CosmoFlow's schedule (its reference's lr_schedule, applied at each epoch's start):
// `base` at epoch 0, rising linearly to `peak` at `warmup_epochs` (peak: base x the global batch
// over the base batch), then peak x the factor of the last decay boundary the epoch has reached
// ({32: 0.25, 64: 0.125} in the reference: not cumulative).
struct EpochDecay {
  int64_t epoch = 0;
  double factor = 1;
};
double WarmupEpochDecayLr(int64_t epoch, double base, double peak, int64_t warmup_epochs,
                          const std::vector<EpochDecay>& decays);

// MLBench 4b's schedule (its SQRTTimeDecayLRWithWarmup, fairseq's inverse_sqrt): linear from
// 0 to `peak` over `warmup` updates, then peak·sqrt(warmup/update). `update` counts applied
// updates from 0, so the first takes rate 0, as there.
double InverseSqrtLr(int64_t update, int64_t warmup, double peak);

// MLBench 4a's schedule (its ExponentialWarmupMultiStepLR, from NVIDIA's GNMT): exponential
// warm-up from peak/100 to `peak` over `warmup` updates, then `peak` until `decay_start`, then
// times `factor` at decay_start and every `interval` updates after it, at most `decays` times.
struct StepDecayLr {
  double peak = 2e-3;
  int64_t warmup = 200;
  int64_t decay_start = 0;  // MLBench: 40% of the run's updates
  int64_t interval = 1;     // MLBench: 5% of them
  int64_t decays = 4;
  double factor = 0.5;
  double At(int64_t update) const;
};

}  // namespace ergobench
