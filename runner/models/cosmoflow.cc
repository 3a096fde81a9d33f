#include "runner/models/cosmoflow.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>

namespace ergobench {
namespace {

namespace F = torch::nn::functional;

constexpr double kLeakySlope = 0.3;   // Keras's LeakyReLU default, which the reference keeps
constexpr double kOutputScale = 1.2;  // tanh x 1.2: the scaled targets reach a little past 1

// Keras's defaults, which the reference trains from: Glorot-uniform weights, zero biases.
void InitLikeKeras(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& p : module.named_parameters(/*recurse=*/false)) {
    if (p.key() == "weight") torch::nn::init::xavier_uniform_(p.value());
    if (p.key() == "bias") torch::nn::init::zeros_(p.value());
  }
}

}  // namespace

int64_t CosmoFlowConfig::flattened() const {
  const int64_t volume = side >> blocks;
  return volume * volume * volume * (base_filters << (blocks - 1));
}

namespace {

struct Preset {
  const char* name;
  int64_t side, blocks, base_filters;
};
constexpr Preset kPresets[] = {{"reference", 128, 5, 32}, {"small", 64, 4, 16}, {"tiny", 32, 3, 8}};

}  // namespace

const std::vector<std::string>& CosmoFlowPresetNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const Preset& p : kPresets) all.push_back(p.name);
    return all;
  }();
  return names;
}

StatusOr<CosmoFlowConfig> CosmoFlowPreset(const std::string& name) {
  std::string listed;
  for (const Preset& p : kPresets) {
    if (name == p.name) {
      CosmoFlowConfig c;
      c.side = p.side, c.blocks = p.blocks, c.base_filters = p.base_filters;
      return c;
    }
    listed += std::string(listed.empty() ? "" : ", ") + p.name;
  }
  return Status::InvalidArgument("hyperparameters.model: must be one of " + listed + ", got \"" + name + "\"");
}

CosmoFlowImpl::CosmoFlowImpl(const CosmoFlowConfig& config)
    : convs_(register_module("convs", torch::nn::ModuleList())),
      dense_(register_module("dense", torch::nn::ModuleList())),
      dropout_(register_module("dropout", torch::nn::Dropout(config.dropout))) {
  int64_t in = config.channels;
  for (int64_t i = 0; i < config.blocks; ++i) {
    const int64_t filters = config.base_filters << i;
    convs_->push_back(torch::nn::Conv3d(torch::nn::Conv3dOptions(in, filters, 3).padding(1)));
    in = filters;
  }
  in = config.flattened();
  for (int64_t width : config.dense) {
    dense_->push_back(torch::nn::Linear(in, width));
    in = width;
  }
  dense_->push_back(torch::nn::Linear(in, config.outputs));
  for (auto& module : modules(/*include_self=*/false)) InitLikeKeras(*module);
}

torch::Tensor CosmoFlowImpl::forward(torch::Tensor x) {
  for (const auto& conv : *convs_) {
    x = F::max_pool3d(F::leaky_relu(conv->as<torch::nn::Conv3d>()->forward(x), F::LeakyReLUFuncOptions().negative_slope(kLeakySlope)),
                      F::MaxPool3dFuncOptions(2));
  }
  x = x.flatten(1);
  const size_t last = dense_->size() - 1;
  for (size_t i = 0; i < last; ++i) {
    x = dropout_(F::leaky_relu(dense_[i]->as<torch::nn::Linear>()->forward(x),
                               F::LeakyReLUFuncOptions().negative_slope(kLeakySlope)));
  }
  return torch::tanh(dense_[last]->as<torch::nn::Linear>()->forward(x)) * kOutputScale;
}

}  // namespace ergobench
