#include "runner/models/cosmoflow.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "api/v1alpha1/catalog.h"
#include "runner/models/models.h"
#include "runner/train/flop_counter.h"

namespace ergobench {
namespace {

CosmoFlow Build(const std::string& preset) {
  StatusOr<CosmoFlowConfig> config = CosmoFlowPreset(preset);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return CosmoFlow(*config);
}

// The reference's count (mlcommons/hpc cosmoflow, its Keras summary): convolutions of 3,488,
// 55,360, 221,312, 884,992 and 3,539,456 parameters, dense layers of 4,194,432 (32,768 x 128 +
// 128), 8,256 and 260.
TEST(CosmoFlowTest, TheReferenceHasTheReferencesParameters) {
  const CosmoFlowConfig reference = *CosmoFlowPreset("reference");
  EXPECT_EQ(reference.flattened(), 32768);
  CosmoFlow model = Build("reference");
  EXPECT_EQ(ParameterCount(*model), 8907556);
}

// By hand. small: convolutions 1,744 + 13,856 + 55,360 + 221,312, dense 8,192 x 128 + 128,
// 8,256, 260. tiny: convolutions 872 + 3,472 + 13,856, dense 2,048 x 128 + 128, 8,256, 260.
TEST(CosmoFlowTest, SmallerPresetsKeepItsShape) {
  CosmoFlow small = Build("small");
  EXPECT_EQ(ParameterCount(*small), 1744 + 13856 + 55360 + 221312 + 1048704 + 8256 + 260);
  CosmoFlow tiny = Build("tiny");
  EXPECT_EQ(ParameterCount(*tiny), 872 + 3472 + 13856 + 262272 + 8256 + 260);
  EXPECT_EQ(FindTask("cosmoflow")->FindHyperparameter("model")->choices, CosmoFlowPresetNames());
  EXPECT_EQ(CosmoFlowPreset("huge").status().ToString(),
            "InvalidArgument: hyperparameters.model: must be one of reference, small, tiny, got \"huge\"");
}

// A tiny forward counted by hand, a sample: convolutions 2 x outputs x input channels x 27,
// 2 x 8 x 32^3 x 4 x 27 = 56,623,104, 2 x 16 x 16^3 x 8 x 27 = 28,311,552 and
// 2 x 32 x 8^3 x 16 x 27 = 14,155,776; dense 2 x (2,048 x 128 + 128 x 64 + 64 x 4) = 541,184.
TEST(CosmoFlowTest, ATinyForwardIsItsHandCountAndItsOutputsAreWithinTheScaledTanh) {
  torch::manual_seed(1);
  CosmoFlow model = Build("tiny");
  model->eval();
  const torch::Tensor x = torch::randn({2, 4, 32, 32, 32}) * 100;  // large inputs saturate the tanh
  FlopCounter counter;
  const torch::Tensor y = model->forward(x);
  EXPECT_EQ(counter.flops(), 2 * (56623104.0 + 28311552 + 14155776 + 541184));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 4}));
  EXPECT_LE(y.abs().max().item<float>(), 1.2f) << "saturated: tanh 1 x 1.2";
}

// Keras's initialization: zero biases, Glorot-uniform weights within sqrt(6 / (fan_in + fan_out)).
TEST(CosmoFlowTest, InitializedAsKerasDoes) {
  CosmoFlow model = Build("tiny");
  for (const auto& item : model->named_parameters()) {
    const std::string& name = item.key();
    const torch::Tensor& p = item.value();
    if (name.find("bias") != std::string::npos) {
      EXPECT_EQ(p.abs().max().item<double>(), 0) << name;
      continue;
    }
    const int64_t receptive = p.dim() > 2 ? p[0][0].numel() : 1;
    const double limit = std::sqrt(6.0 / static_cast<double>((p.size(0) + p.size(1)) * receptive));
    EXPECT_LE(p.abs().max().item<double>(), limit) << name;
    EXPECT_GT(p.abs().max().item<double>(), 0.9 * limit) << name << ": uniform over the whole range";
  }
}

}  // namespace
}  // namespace ergobench
