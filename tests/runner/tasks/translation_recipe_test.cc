#include "runner/tasks/translation_recipe.h"

#include <gtest/gtest.h>

#include "api/v1alpha1/defaults.h"

namespace ergobench {
namespace {

Benchmark Defaulted(const std::string& task, const std::string& source = "path") {
  Benchmark b;
  b.metadata.name = "translate";
  b.spec.task = task;
  b.spec.dataset.source = source;
  b.spec.dataset.path = "/data/wmt16";
  ApplyDefaults(&b);
  return b;
}

// MLBench's wmt16-gnmt-all-reduce: 1024 wide, 4 layers, 128 pairs a worker, a global batch of
// 2048 (update_freq 2048 / (128·k)), Adam 2e-3 after 200 updates, halved from 40% every 5% four
// times, clipped at 5, loss scale 2^10 doubling every 128 up to 2^13, beam 5, coverage 0.1,
// training pairs up to 75 tokens and test pairs up to 150.
TEST(TranslationRecipeTest, TaskFourAIsMlbenchsGnmtRecipe) {
  const Benchmark b = Defaulted("4a");
  const StatusOr<TranslationRecipe> read = ReadTranslationRecipe(b.spec, 1);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const TranslationRecipe& r = *read;
  EXPECT_TRUE(r.gnmt);
  EXPECT_EQ(std::tuple(r.dim, r.layers, r.dropout), std::tuple(1024, 4, 0.2));
  EXPECT_EQ(r.batch_sentences, 128);
  EXPECT_EQ(r.accumulation, 16);
  EXPECT_EQ(std::tuple(r.lr, r.lr_warmup, r.lr_decay_start, r.lr_decay_interval, r.lr_decays, r.lr_decay_factor),
            std::tuple(2e-3, 200, 0.4, 0.05, 4, 0.5));
  EXPECT_EQ(std::tuple(r.beta1, r.beta2, r.epsilon, r.grad_clip), std::tuple(0.9, 0.999, 1e-8, 5.0));
  EXPECT_EQ(r.loss_scaling.initial_scale, 1024);
  EXPECT_EQ(r.loss_scaling.window, 128);
  EXPECT_EQ(r.loss_scaling.max_scale, 8192);
  EXPECT_EQ(std::tuple(r.beam, r.length_penalty, r.coverage_penalty), std::tuple(5, 0.6, 0.1));
  EXPECT_EQ(std::tuple(r.max_length, r.test_max_length), std::tuple(75, 150));
  EXPECT_EQ(r.train.source_path, "/data/wmt16/train.tok.clean.bpe.32000.en");
  EXPECT_EQ(r.test.target_path, "/data/wmt16/newstest2014.tok.bpe.32000.de");
  EXPECT_EQ(r.test.max_length, 150);
  EXPECT_EQ(r.vocab_file, "/data/wmt16/vocab.bpe.32000");
  EXPECT_EQ(r.goal, 24.0);
  EXPECT_EQ(r.max_epochs, 8);
  for (const auto& [k, accumulation] : {std::pair{2, 8}, std::pair{4, 4}, std::pair{16, 1}, std::pair{64, 1}}) {
    EXPECT_EQ(ReadTranslationRecipe(b.spec, k)->accumulation, accumulation) << k;
  }
}

TEST(TranslationRecipeTest, TaskFourBIsMlbenchsTransformerRecipe) {
  const StatusOr<TranslationRecipe> read = ReadTranslationRecipe(Defaulted("4b", "synthetic").spec, 4);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  const TranslationRecipe& r = *read;
  EXPECT_FALSE(r.gnmt);
  EXPECT_TRUE(r.synthetic);
  EXPECT_EQ(std::tuple(r.dim, r.ffn, r.heads, r.layers), std::tuple(1024, 4096, 16, 6));
  EXPECT_EQ(std::tuple(r.batch_tokens, r.accumulation), std::tuple(8192, 4));
  EXPECT_EQ(std::tuple(r.lr, r.lr_warmup, r.beta2, r.epsilon), std::tuple(1.976e-3, 1000, 0.98, 1e-9));
  EXPECT_EQ(r.loss_scaling.initial_scale, 128);
  EXPECT_EQ(r.loss_scaling.window, 2000);
  EXPECT_FALSE(r.loss_scaling.max_scale.has_value());
  EXPECT_EQ(std::tuple(r.beam, r.coverage_penalty, r.grad_clip), std::tuple(4, 0.0, 0.0));
  EXPECT_EQ(r.goal, 25.0);
}

// A config that did not come through validation (a hand-written runner config) still gets an
// error naming the field, never a model that cannot be built.
TEST(TranslationRecipeTest, ModelsThatCannotBeBuiltNameTheField) {
  Benchmark gnmt = Defaulted("4a");
  gnmt.spec.hyperparameters["layers"] = 1;
  EXPECT_EQ(ReadTranslationRecipe(gnmt.spec, 1).status().message(),
            "spec.hyperparameters.layers: GNMT needs at least 2 (its bidirectional layer and one after it), not 1");
  Benchmark transformer = Defaulted("4b");
  transformer.spec.hyperparameters["heads"] = 5;
  EXPECT_EQ(ReadTranslationRecipe(transformer.spec, 1).status().message(),
            "spec.hyperparameters.heads: 5 heads do not divide dim 1024");
  transformer.spec.hyperparameters.erase("beam");
  EXPECT_NE(ReadTranslationRecipe(transformer.spec, 1).status().message().find("spec.hyperparameters.beam"),
            std::string::npos);
}

}  // namespace
}  // namespace ergobench
