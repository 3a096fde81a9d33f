// The shape of a GPT-2-style decoder-only transformer, its size presets, and the arithmetic
// that needs no tensors: parameter counts and model FLOPs per token. The model itself
// (gpt.h) and the LM task build from a GptConfig; the FLOPs here are what the task reports
// as model TFLOP/s and MFU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace ergobench {

struct GptConfig {
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t sequence_length = 0;  // also the number of learned positions
  int64_t vocab_size = 0;
  // The MLP is 4x hidden with GELU; embeddings are tied to the output layer (GPT-2).
  int64_t ffn_hidden() const { return 4 * hidden; }
  int64_t head_dim() const { return hidden / heads; }
};

struct GptPreset {
  std::string name;
  std::string origin;  // where the shape comes from
  GptConfig config;
};

// GPT-2 (small .. xl), the Turing table's GPT2 .. GPT2-XXXL, CARAML's 117M and 800M, and
// tiny shapes for tests. Vocabulary 50257 (GPT-2's BPE) unless a tokenizer says otherwise.
const std::vector<GptPreset>& GptPresets();
// nullptr when there is no such preset.
const GptPreset* FindGptPreset(std::string_view name);
// "gpt2, gpt2-medium, ...": for error messages.
std::string GptPresetNames();

// Every way a shape can be unusable, with the hyperparameter it came from.
Status ValidateGptConfig(const GptConfig& config);

// Trainable parameters, tied embeddings counted once: V·h + S·h + L·(12h² + 13h) + 2h.
int64_t GptParameterCount(const GptConfig& config);

// Training FLOPs per token: 6·N + 12·L·h·S, where N = L·12h² + V·h counts the weights of the
// matrix multiplications (the tied output layer included; biases, LayerNorms and positions
// left out) and 12·L·h·S is self-attention's scores and weighted sum, forward and backward.
// This is Megatron-LM's 72·L·h²·(1 + S/(6h) + V/(12·L·h)) per token without activation
// recomputation (Narayanan et al., 2021) and PaLM's 6N + 12·L·H·Q·T (Chowdhery et al., 2022).
double GptTrainingFlopsPerToken(const GptConfig& config);

}  // namespace ergobench
