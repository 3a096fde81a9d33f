// CosmoFlow, MLPerf HPC's 3D convolutional network that regresses four cosmological parameters
// from a dark-matter volume (mlcommons/hpc cosmoflow, after Mathuriya et al. 2018), as libtorch
// modules. The reference: five blocks of [Conv3d, kernel 3, "same" padding, 32 x 2^i filters;
// LeakyReLU(0.3); MaxPool3d(2)] take 4 x 128^3 down to 512 x 4^3; flattened, Dense(128),
// LeakyReLU(0.3), Dropout(0.5), Dense(64), LeakyReLU(0.3), Dropout(0.5), Dense(4), and
// tanh x 1.2 (the targets are scaled to about [-1, 1]). No batch normalization; Keras's
// initialization (Glorot-uniform weights, zero biases). 8,907,556 parameters. Smaller presets
// keep the shape of it (blocks down to a 4^3 volume, the filters doubling) for CPUs.
// Only torch translation units include this header.
#pragma once

#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include "base/status.h"

namespace ergobench {

struct CosmoFlowConfig {
  int64_t side = 128;         // the volume's edge in cells; halved by each block's pooling
  int64_t channels = 4;       // the reference's four redshifts
  int64_t blocks = 5;         // conv blocks: side / 2^blocks is what the dense layers see
  int64_t base_filters = 32;  // block i has base_filters x 2^i
  std::vector<int64_t> dense = {128, 64};
  double dropout = 0.5;
  int64_t outputs = 4;        // the cosmological parameters

  int64_t flattened() const;  // the first dense layer's inputs
};

// "reference" (128^3, 5 blocks of 32..512 filters), "small" (64^3, 4 blocks of 16..128) and
// "tiny" (32^3, 3 blocks of 8..32); an unknown name is an error naming the choices.
StatusOr<CosmoFlowConfig> CosmoFlowPreset(const std::string& name);
// The presets' names: the catalog's choices of hyperparameters.model (cosmoflow_test checks both
// lists agree; the catalog cannot call the runner).
const std::vector<std::string>& CosmoFlowPresetNames();

class CosmoFlowImpl : public torch::nn::Module {
 public:
  explicit CosmoFlowImpl(const CosmoFlowConfig& config);
  // [batch, channels, side, side, side] -> [batch, outputs], each in (-1.2, 1.2).
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::ModuleList convs_{nullptr};
  torch::nn::ModuleList dense_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
};
TORCH_MODULE(CosmoFlow);

}  // namespace ergobench
