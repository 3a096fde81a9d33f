#include <gtest/gtest.h>

#include "runner/metrics/runner_metrics.h"

#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

MetricLabels Labels() { return {"task0a-k2", "0a", "gloo", 1, 2}; }

TEST(RunnerMetricsTest, RendersDesignNamesWithLabels) {
  RunnerMetrics metrics(Labels());
  metrics.AddPhaseSeconds(TrainingPhase::kCommunication, 1.5);
  metrics.AddPhaseSeconds(TrainingPhase::kCommunication, 0.5);
  metrics.AddSamples(256);
  metrics.SetBusBandwidth(4096, 1.25e9);
  metrics.ObserveStep(0.02);
  metrics.SetEvalAccuracy(0.81);
  metrics.AddCollectiveSeconds(2.25);
  metrics.AddCollectiveSeconds(0.5);
  const std::string text = metrics.Render();
  const std::string labels = "backend=\"gloo\",benchmark=\"task0a-k2\",rank=\"1\",task=\"0a\",world_size=\"2\"";
  EXPECT_NE(text.find("ergobench_phase_seconds_total{" + labels + ",phase=\"communication\"} 2"), std::string::npos)
      << text;
  // Every phase exists from the start.
  EXPECT_NE(text.find("ergobench_phase_seconds_total{" + labels + ",phase=\"forward\"} 0"), std::string::npos);
  EXPECT_NE(text.find("ergobench_samples_total{" + labels + "} 256"), std::string::npos);
  EXPECT_NE(text.find("ergobench_allreduce_bus_bandwidth_bytes_per_second{" + labels + ",bytes=\"4096\"} 1250000000"),
            std::string::npos) << text;
  EXPECT_NE(text.find("ergobench_step_duration_seconds_count{" + labels + "} 1"), std::string::npos);
  EXPECT_NE(text.find("ergobench_eval_accuracy_ratio{" + labels + "} 0.81"), std::string::npos);
  EXPECT_NE(text.find("ergobench_collective_seconds_total{" + labels + "} 2.75"), std::string::npos) << text;
  EXPECT_NE(text.find("ergobench_build_info{" + labels + ",component=\"runner\",version=\"" + ErgobenchVersion() + "\"} 1"),
            std::string::npos) << text;
  for (const char* name : {"ergobench_tokens_total", "ergobench_train_loss", "ergobench_epoch", "ergobench_goal_reached"}) {
    EXPECT_NE(text.find(std::string("# TYPE ") + name), std::string::npos) << name;
  }
}

TEST(RunnerMetricsTest, ProgressHasOneRemainingSeriesLabelledWithItsBasis) {
  RunnerMetrics metrics(Labels());
  const std::string labels = "backend=\"gloo\",benchmark=\"task0a-k2\",rank=\"1\",task=\"0a\",world_size=\"2\"";
  metrics.SetProgress({0.25, 140, "work"});
  std::string text = metrics.Render();
  EXPECT_NE(text.find("ergobench_progress_ratio{" + labels + "} 0.25"), std::string::npos) << text;
  EXPECT_NE(text.find("ergobench_progress_remaining_seconds{" + labels + ",basis=\"work\"} 140"), std::string::npos)
      << text;
  metrics.SetProgress({0.5, 40, "goal"});
  text = metrics.Render();
  EXPECT_NE(text.find("ergobench_progress_remaining_seconds{" + labels + ",basis=\"goal\"} 40"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("basis=\"work\""), std::string::npos) << "the old basis's series is gone";
  metrics.SetProgress({0.6, std::nullopt, ""});
  EXPECT_EQ(metrics.Render().find("ergobench_progress_remaining_seconds{"), std::string::npos) << "no estimate, no series";
}

TEST(RunnerMetricsTest, EnergyFollowsTheSamplerAndPowerIsPerDevice) {
  RunnerMetrics metrics(Labels());
  metrics.SetEnergy("cpu0", "package", 12.5);
  metrics.SetEnergy("cpu0", "package", 20.0);  // the counter moves up to the new total
  metrics.SetEnergy("cpu0", "package", 19.0);  // and never down
  metrics.SetPower("gpu0", 250.5);
  const std::string text = metrics.Render();
  const std::string labels = "backend=\"gloo\",benchmark=\"task0a-k2\",rank=\"1\",task=\"0a\",world_size=\"2\"";
  EXPECT_NE(text.find("ergobench_energy_joules_total{" + labels + ",device=\"cpu0\",domain=\"package\"} 20\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ergobench_power_watts{" + labels + ",device=\"gpu0\"} 250.5\n"), std::string::npos) << text;
}

TEST(RunnerMetricsTest, MemoryIsOneGaugePerKind) {
  RunnerMetrics metrics(Labels());
  metrics.SetMemory(MemoryFigures{900, 600, 100, 60, 80, 360, std::nullopt});
  const std::string text = metrics.Render();
  const std::string labels = "backend=\"gloo\",benchmark=\"task0a-k2\",rank=\"1\",task=\"0a\",world_size=\"2\"";
  for (const auto& [kind, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"peak_resident", "900"}, {"peak_tensor", "600"}, {"parameters", "100"}, {"gradients", "60"},
           {"optimizer_state", "80"}, {"activations", "360"}}) {
    EXPECT_NE(text.find("ergobench_memory_bytes{" + labels + ",kind=\"" + kind + "\"} " + bytes + "\n"),
              std::string::npos)
        << kind << "\n" << text;
  }
  EXPECT_EQ(text.find("peak_reserved"), std::string::npos) << text;  // a CPU run reserves nothing apart
  metrics.SetMemory(MemoryFigures{900, 600, 100, 60, 80, 360, 700});  // a GPU run's
  EXPECT_NE(metrics.Render().find("ergobench_memory_bytes{" + labels + ",kind=\"peak_reserved\"} 700\n"),
            std::string::npos);
}

}  // namespace
}  // namespace ergobench
