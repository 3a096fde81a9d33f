#include "runner/models/gpt_config.h"

namespace ergobench {
namespace {

constexpr int64_t kGpt2Vocab = 50257;

GptPreset Preset(std::string name, std::string origin, int64_t layers, int64_t hidden, int64_t heads,
                 int64_t sequence_length, int64_t vocab_size = kGpt2Vocab) {
  return {std::move(name), std::move(origin), GptConfig{layers, hidden, heads, sequence_length, vocab_size}};
}

std::vector<GptPreset> BuildPresets() {
  return {
      // OpenAI's GPT-2 family (Radford et al., 2019): 1024 positions, 64-wide heads.
      Preset("gpt2", "GPT-2 small (124M)", 12, 768, 12, 1024),
      Preset("gpt2-medium", "GPT-2 medium (355M)", 24, 1024, 16, 1024),
      Preset("gpt2-large", "GPT-2 large (774M)", 36, 1280, 20, 1024),
      Preset("gpt2-xl", "GPT-2 XL (1.5B)", 48, 1600, 25, 1024),
      // The Turing table's two larger rows; it gives layers and width only, so the heads are
      // 64 wide and the context 1024, as in the rows above it.
      Preset("gpt2-xxl", "Turing table GPT2-XXL, 60 layers x 1920", 60, 1920, 30, 1024),
      Preset("gpt2-xxxl", "Turing table GPT2-XXXL, 84 layers x 2560", 84, 2560, 40, 1024),
      // CARAML (FZJ-JSC): its 117M is GPT-2 small on Graphcore IPUs at 1024 tokens; its 800M
      // runs in Megatron-LM with 2048 tokens (and rotary positions there; learned ones here).
      Preset("caraml-117m", "CARAML 117M (GPT-2 small, 1024 tokens)", 12, 768, 12, 1024),
      Preset("caraml-800m", "CARAML 800M (Megatron-LM: 16 layers x 2048, 8 heads, 2048 tokens)", 16, 2048, 8, 2048),
      // For tests and quick looks on a CPU; the byte-level tokenizer's 257 symbols.
      Preset("tiny", "ergobench: 2 layers x 64, for tests", 2, 64, 4, 64, 257),
      Preset("mini", "ergobench: 4 layers x 256, a CPU smoke test", 4, 256, 8, 256, 257),
  };
}

}  // namespace

const std::vector<GptPreset>& GptPresets() {
  static const std::vector<GptPreset> presets = BuildPresets();
  return presets;
}

const GptPreset* FindGptPreset(std::string_view name) {
  for (const GptPreset& preset : GptPresets()) {
    if (preset.name == name) return &preset;
  }
  return nullptr;
}

std::string GptPresetNames() {
  std::string names;
  for (const GptPreset& preset : GptPresets()) names += (names.empty() ? "" : ", ") + preset.name;
  return names;
}

Status ValidateGptConfig(const GptConfig& c) {
  const auto positive = [](const char* name, int64_t value) {
    return value > 0 ? Status::Ok()
                     : Status::InvalidArgument(std::string("spec.hyperparameters.") + name + ": must be positive, got " +
                                               std::to_string(value));
  };
  RETURN_IF_ERROR(positive("layers", c.layers));
  RETURN_IF_ERROR(positive("hidden", c.hidden));
  RETURN_IF_ERROR(positive("heads", c.heads));
  RETURN_IF_ERROR(positive("sequenceLength", c.sequence_length));
  RETURN_IF_ERROR(positive("vocabSize", c.vocab_size));
  if (c.hidden % c.heads != 0) {
    return Status::InvalidArgument("spec.hyperparameters.heads: " + std::to_string(c.heads) + " does not divide hidden " +
                                   std::to_string(c.hidden));
  }
  return Status::Ok();
}

int64_t GptParameterCount(const GptConfig& c) {
  const int64_t h = c.hidden;
  // Per block: two LayerNorms (2h each), QKV (3h² + 3h), attention output (h² + h), MLP up
  // (4h² + 4h) and down (4h² + h).
  const int64_t block = 12 * h * h + 13 * h;
  return c.vocab_size * h + c.sequence_length * h + c.layers * block + 2 * h;
}

double GptTrainingFlopsPerToken(const GptConfig& c) {
  const double h = static_cast<double>(c.hidden);
  const double matmul_weights = static_cast<double>(c.layers) * 12 * h * h + static_cast<double>(c.vocab_size) * h;
  const double attention = 12 * static_cast<double>(c.layers) * h * static_cast<double>(c.sequence_length);
  return 6 * matmul_weights + attention;
}

}  // namespace ergobench
