#include "runner/models/gpt_config.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/catalog.h"

namespace ergobench {
namespace {

int64_t Params(const char* preset) { return GptParameterCount(FindGptPreset(preset)->config); }

// Hugging Face's GPT2LMHeadModel.num_parameters() for OpenAI's checkpoints (tied embeddings).
TEST(GptConfigTest, PresetsMatchGpt2sPublishedSizes) {
  EXPECT_EQ(Params("gpt2"), 124439808);
  EXPECT_EQ(Params("gpt2-medium"), 354823168);
  EXPECT_EQ(Params("gpt2-large"), 774030080);
  EXPECT_EQ(Params("gpt2-xl"), 1557611200);
  EXPECT_EQ(Params("caraml-117m"), Params("gpt2"));
}

TEST(GptConfigTest, CaramlAndTuringSizesAreNamedByTheirTransformerBlocks) {
  // "800M" counts the blocks, not the 50257 x 2048 embedding: 16 x (12h^2 + 13h) at h = 2048.
  const GptConfig& c800 = FindGptPreset("caraml-800m")->config;
  EXPECT_EQ(c800.layers * (12 * c800.hidden * c800.hidden + 13 * c800.hidden), 805732352);
  EXPECT_EQ(Params("caraml-800m"), 912857088);
  for (const char* name : {"gpt2-xxl", "gpt2-xxxl"}) {
    const GptConfig& c = FindGptPreset(name)->config;
    EXPECT_EQ(c.head_dim(), 64) << name;
  }
  EXPECT_EQ(FindGptPreset("gpt2-xxxl")->config.layers, 84);
  EXPECT_EQ(FindGptPreset("gpt2-xxxl")->config.hidden, 2560);
}

TEST(GptConfigTest, TrainingFlopsAreMegatronsFormula) {
  // Narayanan et al. (2021), without recomputation: 72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h)) per
  // iteration of B sequences of s tokens.
  for (const GptPreset& preset : GptPresets()) {
    const GptConfig& c = preset.config;
    const double L = static_cast<double>(c.layers), h = static_cast<double>(c.hidden);
    const double s = static_cast<double>(c.sequence_length), V = static_cast<double>(c.vocab_size);
    const double megatron = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
    EXPECT_NEAR(GptTrainingFlopsPerToken(c), megatron, 1e-9 * megatron) << preset.name;
  }
  // GPT-2 small: 6 x 123,532,032 matmul weights + 12 x 12 x 768 x 1024 = 854.4 MFLOP per token.
  EXPECT_DOUBLE_EQ(GptTrainingFlopsPerToken(FindGptPreset("gpt2")->config), 854438400.0);
}

TEST(GptConfigTest, TheCatalogOffersExactlyThePresets) {
  const HyperparameterDef* model = FindTask("gpt")->FindHyperparameter("model");
  ASSERT_NE(model, nullptr);
  std::vector<std::string> names;
  for (const GptPreset& preset : GptPresets()) names.push_back(preset.name);
  EXPECT_EQ(model->choices, names);
  EXPECT_NE(FindGptPreset(model->default_value.get<std::string>()), nullptr);
}

TEST(GptConfigTest, ValidationNamesTheHyperparameter) {
  GptConfig c = FindGptPreset("tiny")->config;
  EXPECT_TRUE(ValidateGptConfig(c).ok());
  c.heads = 3;
  EXPECT_EQ(ValidateGptConfig(c).message(), "spec.hyperparameters.heads: 3 does not divide hidden 64");
  c = FindGptPreset("tiny")->config;
  c.sequence_length = 0;
  EXPECT_EQ(ValidateGptConfig(c).message(), "spec.hyperparameters.sequenceLength: must be positive, got 0");
  EXPECT_EQ(FindGptPreset("gpt5"), nullptr);
  EXPECT_NE(GptPresetNames().find("caraml-800m"), std::string::npos);
}

}  // namespace
}  // namespace ergobench
