#include "runner/models/seq2seq.h"

#include <cmath>
#include <memory>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "runner/models/gnmt.h"
#include "runner/models/transformer.h"

namespace ergobench {
namespace {

constexpr int64_t kBegin = 2, kEnd = 3;

TEST(Seq2SeqTest, LabelSmoothedLossByHand) {
  // Two tokens over 3 classes; the second is padding and counts nothing.
  const torch::Tensor logits = torch::tensor({{{1.0, 2.0, 0.5}, {0.3, 0.3, 0.3}}});
  const torch::Tensor targets = torch::tensor({{1, 0}}, torch::kLong);
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5));
  const double nll = lse - 2.0;
  const double smooth = lse - (1.0 + 2.0 + 0.5) / 3;
  EXPECT_NEAR(0.9 * nll + 0.1 * smooth, LabelSmoothedLossSum(logits, targets, 0.1, 0).item<double>(), 1e-6);
}

// Both models, small and untrained.
std::vector<std::shared_ptr<Seq2SeqModule>> SmallModels() {
  TransformerConfig transformer;
  transformer.vocab_size = 50;
  transformer.dim = 16;
  transformer.ffn = 32;
  transformer.heads = 4;
  transformer.encoder_layers = transformer.decoder_layers = 2;
  transformer.max_positions = 12;
  GnmtConfig gnmt;
  gnmt.vocab_size = 50;
  gnmt.hidden = 16;
  gnmt.layers = 3;
  std::vector<std::shared_ptr<Seq2SeqModule>> models = {Transformer(transformer).ptr(), Gnmt(gnmt).ptr()};
  for (auto& model : models) model->eval();
  return models;
}

DecodeOptions Options(int64_t max_length, int64_t beam) {
  DecodeOptions options;
  options.begin = kBegin;
  options.end = kEnd;
  options.max_length = max_length;
  options.beam = beam;
  return options;
}

TEST(Seq2SeqTest, GreedyDecodingStopsAtTheEndAndPadsAfterIt) {
  torch::manual_seed(3);
  for (const auto& model : SmallModels()) {
    const torch::Tensor source = torch::tensor({{5, 6, 7, 3}, {8, 9, 3, 0}}, torch::kLong);
    const torch::Tensor out = GreedyDecode(*model, source, Options(10, 1));
    EXPECT_EQ(2, out.size(0));
    EXPECT_LE(out.size(1), 10);
    for (int64_t row = 0; row < 2; ++row) {
      bool ended = false;
      for (int64_t i = 0; i < out.size(1); ++i) {
        const int64_t id = out[row][i].item<int64_t>();
        if (ended) {
          EXPECT_EQ(0, id) << "after the end";
        }
        ended = ended || id == kEnd;
      }
    }
  }
}

// A beam of one is greedy decoding (for GNMT, through its carried LSTM states and their
// reordering); a wider one gives each sentence one hypothesis that ends at <\s> (or at
// max_length), padded after it.
TEST(Seq2SeqTest, BeamSearchOfWidthOneIsGreedyDecoding) {
  torch::manual_seed(4);
  for (const auto& model : SmallModels()) {
    const torch::Tensor source = torch::tensor({{5, 6, 7, 3}, {8, 9, 3, 0}}, torch::kLong);
    const torch::Tensor greedy = GreedyDecode(*model, source, Options(8, 1));
    const torch::Tensor one = BeamSearchDecode(*model, source, Options(8, 1));
    ASSERT_EQ(greedy.sizes(), one.sizes());
    EXPECT_TRUE(torch::equal(greedy, one));
    DecodeOptions wide_options = Options(8, 4);
    wide_options.coverage_penalty = 0.1;
    const torch::Tensor wide = BeamSearchDecode(*model, source, wide_options);
    ASSERT_EQ(2, wide.size(0));
    for (int64_t row = 0; row < 2; ++row) {
      int64_t length = 0;
      while (length < wide.size(1) && wide[row][length].item<int64_t>() != 0) ++length;
      ASSERT_GT(length, 0);
      EXPECT_TRUE(length == 8 || wide[row][length - 1].item<int64_t>() == kEnd) << row;
      for (int64_t i = 0; i + 1 < length; ++i) EXPECT_NE(kEnd, wide[row][i].item<int64_t>()) << row;
    }
  }
}

// A scripted model: from <s>, token 4 (p 0.5), 5 (p 0.4) or <\s> (p 0.1); after 4 or 5, <\s>.
// Its attention over a two-token source: (0.5, 0.5) at <s>; after 4, (0.5, 0); after 5, (0.5, 0.5).
class ScriptedDecoder : public StepDecoder {
 public:
  void Start(const torch::Tensor& /*source*/) override {}
  torch::Tensor Next(const torch::Tensor& prefixes) override {
    const int64_t rows = prefixes.size(0);
    torch::Tensor log_probs = torch::full({rows, 6}, -1e9, torch::kFloat);
    attention_ = torch::full({rows, 2}, 0.5, torch::kFloat);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t last = prefixes[r][-1].item<int64_t>();
      if (last == kBegin) {
        log_probs[r][4] = std::log(0.5);
        log_probs[r][5] = std::log(0.4);
        log_probs[r][kEnd] = std::log(0.1);
      } else {
        log_probs[r][kEnd] = 0;
        if (last == 4) attention_[r][1] = 0;
      }
    }
    return log_probs;
  }
  torch::Tensor LastAttention() const override { return attention_; }
  void Reorder(const torch::Tensor& /*rows*/) override {}

 private:
  torch::Tensor attention_;
};

class ScriptedModel : public Seq2SeqModule {
 public:
  torch::Tensor Logits(const torch::Tensor&, const torch::Tensor&) override { return {}; }
  std::unique_ptr<StepDecoder> NewStepDecoder() override { return std::make_unique<ScriptedDecoder>(); }
  int64_t pad() const override { return 0; }
};

// Both finish at length 2, normalised by ((5 + 2) / 6)^0.6: "4" scores log 0.5 / 1.0969 = -0.632
// and "5" log 0.4 / 1.0969 = -0.835. Their coverage: "4" attended (1, 0.5), a penalty of
// log 0.5 = -0.693 a unit weight; "5" attended (1, 1), none. With the weight 1, "5" wins.
TEST(Seq2SeqTest, TheCoveragePenaltyPrefersTheTranslationThatAttendedTheWholeSource) {
  ScriptedModel model;
  const torch::Tensor source = torch::tensor({{7, 3}}, torch::kLong);
  DecodeOptions options = Options(5, 2);
  EXPECT_TRUE(torch::equal(BeamSearchDecode(model, source, options), torch::tensor({{4, 3}}, torch::kLong)));
  options.coverage_penalty = 1.0;
  EXPECT_TRUE(torch::equal(BeamSearchDecode(model, source, options), torch::tensor({{5, 3}}, torch::kLong)));
  // Between the two weights' crossing: 0.203 / 0.693 = 0.293.
  options.coverage_penalty = 0.28;
  EXPECT_TRUE(torch::equal(BeamSearchDecode(model, source, options), torch::tensor({{4, 3}}, torch::kLong)));
  options.coverage_penalty = 0.30;
  EXPECT_TRUE(torch::equal(BeamSearchDecode(model, source, options), torch::tensor({{5, 3}}, torch::kLong)));
}

}  // namespace
}  // namespace ergobench
