#include "runner/metrics/bleu.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// sacreBLEU 2.6.0's test suite (github mjpost/sacrebleu at f615c72, test/test_bleu.py and
// test/test_sentence_bleu.py), its README's example, and what that code gives at each stage.
const std::vector<std::string> kHypotheses = {"The dog bit the man.", "It wasn't surprising.",
                                              "The man had just bitten him."};
const std::vector<std::vector<std::string>> kReferences = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

BleuScore Corpus(const std::vector<std::string>& hypotheses, const std::vector<std::vector<std::string>>& references,
                 const BleuOptions& options = {}) {
  auto score = CorpusBleu(hypotheses, references, options);
  EXPECT_TRUE(score.ok()) << score.status().ToString();
  return score.ok() ? *score : BleuScore{};
}

// raw_corpus_bleu: no tokenization, floor smoothing, effective order.
BleuOptions Raw(double floor) {
  BleuOptions options;
  options.tokenizer = BleuTokenizer::kNone;
  options.smoothing = BleuSmoothing::kFloor;
  options.smooth_value = floor;
  options.effective_order = true;
  return options;
}

TEST(BleuTest, TheReadmeExampleByDefault) {
  const BleuScore score = Corpus(kHypotheses, kReferences);
  EXPECT_NEAR(48.530827, score.score, 1e-6);
  EXPECT_DOUBLE_EQ(48.530827009929865, score.score);
  EXPECT_THAT(score.statistics.matches, ElementsAre(14, 7, 5, 3));
  EXPECT_THAT(score.statistics.totals, ElementsAre(17, 14, 11, 8));
  EXPECT_DOUBLE_EQ(0.9428731438548749, score.brevity_penalty);
  EXPECT_EQ("BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)", score.Format());
}

TEST(BleuTest, SegmentStatisticsOfTheReadmeExample) {
  const auto stats = [](size_t i) {
    return SegmentBleuStatistics(kHypotheses[i], {kReferences[0][i], kReferences[1][i]});
  };
  const auto flat = [](const BleuStatistics& s) {
    std::vector<int64_t> v = {s.hypothesis_length, s.reference_length};
    v.insert(v.end(), s.matches.begin(), s.matches.end());
    v.insert(v.end(), s.totals.begin(), s.totals.end());
    return v;
  };
  EXPECT_THAT(flat(stats(0)), ElementsAre(6, 6, 6, 5, 4, 3, 6, 5, 4, 3));
  EXPECT_THAT(flat(stats(1)), ElementsAre(4, 5, 2, 0, 0, 0, 4, 3, 2, 1));  // 4 and 6 long: the closer
  EXPECT_THAT(flat(stats(2)), ElementsAre(7, 7, 6, 2, 1, 0, 7, 6, 5, 4));
}

TEST(BleuTest, SmoothingNoneChangesNothingWhenEveryOrderMatches) {
  BleuOptions options;
  options.smoothing = BleuSmoothing::kNone;
  EXPECT_NEAR(48.530827, Corpus(kHypotheses, kReferences, options).score, 1e-6);
}

TEST(BleuTest, NoTokenization) {
  BleuOptions options;
  options.tokenizer = BleuTokenizer::kNone;
  const BleuScore score = Corpus(kHypotheses, kReferences, options);
  EXPECT_NEAR(49.1919566, score.score, 1e-6);
  EXPECT_THAT(score.statistics.matches, ElementsAre(10, 6, 4, 2));
}

TEST(BleuTest, EmptyHypothesesScoreZeroAndStayInTheCorpus) {
  const BleuScore score = Corpus({"", "", ""}, kReferences);
  EXPECT_EQ(0.0, score.score);
  EXPECT_EQ("BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 0.000 ratio = 0.000 hyp_len = 0 ref_len = 17)", score.Format());
}

TEST(BleuTest, AnEmptyReferenceCountsAsOneOfNoTokens) {
  auto references = kReferences;
  references[0][0] = "";
  EXPECT_EQ("BLEU = 29.44 82.4/42.9/27.3/12.5 (BP = 0.889 ratio = 0.895 hyp_len = 17 ref_len = 19)",
            Corpus(kHypotheses, references).Format());
}

TEST(BleuTest, MaxOrderOneToSix) {
  const char* expected[] = {"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};
  for (int order = 1; order <= 6; ++order) {
    BleuOptions options;
    options.max_order = order;
    EXPECT_THAT(Corpus(kHypotheses, kReferences, options).Format(), HasSubstr(std::string("= ") + expected[order - 1] + " "))
        << "max order " << order;
  }
}

TEST(BleuTest, RawCorpusCases) {
  EXPECT_EQ(0.0, Corpus({"this is a test", "another test"}, {{"ref1", "ref2"}}, Raw(0.01)).score);
  EXPECT_NEAR(1.0, Corpus({"this is a test"}, {{"this is a test"}}, Raw(0.01)).score / 100, 1e-8);
  EXPECT_NEAR(0.223606797749979, Corpus({"this is a fest"}, {{"this is a test"}}, Raw(0.01)).score / 100, 1e-8);
}

TEST(BleuTest, FloorSmoothingOffsets) {
  const std::vector<std::string> hypothesis = {"am I am a character sequence"};
  const std::vector<std::vector<std::string>> reference = {{"I am a symbol string sequence a a"}};
  EXPECT_EQ(0.0, Corpus(hypothesis, reference, Raw(0.0)).score);
  EXPECT_NEAR(0.1555722182, Corpus(hypothesis, reference, Raw(0.1)).score / 100, 1e-8);
  BleuOptions default_floor = Raw(0.1);
  default_floor.smooth_value.reset();
  EXPECT_NEAR(0.1555722182, Corpus(hypothesis, reference, default_floor).score / 100, 1e-8);
  const BleuScore score = Corpus(hypothesis, reference, Raw(0.01));
  EXPECT_THAT(score.statistics.matches, ElementsAre(4, 2, 1, 0));
  EXPECT_THAT(score.statistics.totals, ElementsAre(6, 5, 4, 3));
}

TEST(BleuTest, EffectiveOrder) {
  EXPECT_NEAR(0.3678794411714425, Corpus({"test"}, {{"a test"}}, Raw(0.01)).score / 100, 1e-8);
  EXPECT_NEAR(1.0, Corpus({"a test"}, {{"a test"}}, Raw(0.01)).score / 100, 1e-8);
  EXPECT_NEAR(0.03218297948685433, Corpus({"a little test"}, {{"a test"}}, Raw(0.01)).score / 100, 1e-8);
}

BleuStatistics Statistics(std::vector<int64_t> matches, std::vector<int64_t> totals, int64_t sys_len, int64_t ref_len) {
  return {sys_len, ref_len, std::move(matches), std::move(totals)};
}

TEST(BleuTest, ScoringStatistics) {
  BleuOptions none;
  none.smoothing = BleuSmoothing::kNone;
  EXPECT_NEAR(0.8375922397, ScoreBleu(Statistics({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11), none).score / 100, 1e-8);
}

TEST(BleuTest, DegenerateStatisticsScoreExactlyZero) {
  struct Case {
    BleuStatistics statistics;
    double floor;
  };
  const Case cases[] = {{Statistics({0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1), 0.0},
                        {Statistics({0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10), 0.0},
                        {Statistics({0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0), 0.0},
                        {Statistics({6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6), 0.0},
                        {Statistics({0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0), 0.1},
                        {Statistics({0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5), 0.01}};
  for (const Case& c : cases) {
    BleuOptions floor;
    floor.smoothing = BleuSmoothing::kFloor;
    floor.smooth_value = c.floor;
    EXPECT_EQ(0.0, ScoreBleu(c.statistics, floor).score);
  }
}

// test_sentence_bleu.py: one segment (#98), 13a, effective order, every smoothing.
TEST(BleuTest, SentenceCasesOfEverySmoothing) {
  const std::string reference = "produc\u0163ia de zah\u0103r brut se exprim\u0103 \u00een zah\u0103r alb;";
  const std::string hypothesis =
      "Produc\u021bia de zah\u0103r prim\u0103 va fi exprimat\u0103 \u00een ceea ce prive\u0219te zah\u0103rul alb;";
  struct Case {
    BleuSmoothing smoothing;
    std::optional<double> value;
    BleuTokenizer tokenizer;
    double expected;
  };
  const Case cases[] = {{BleuSmoothing::kExp, {}, BleuTokenizer::k13a, 8.493},
                        {BleuSmoothing::kNone, {}, BleuTokenizer::k13a, 0.0},
                        {BleuSmoothing::kFloor, {}, BleuTokenizer::k13a, 4.51688},
                        {BleuSmoothing::kFloor, 0.1, BleuTokenizer::k13a, 4.51688},
                        {BleuSmoothing::kFloor, 0.5, BleuTokenizer::k13a, 10.10},
                        {BleuSmoothing::kAddK, {}, BleuTokenizer::k13a, 14.882},
                        {BleuSmoothing::kAddK, 1, BleuTokenizer::k13a, 14.882},
                        {BleuSmoothing::kAddK, 2, BleuTokenizer::k13a, 21.389},
                        {BleuSmoothing::kExp, {}, BleuTokenizer::kNone, 7.347}};
  for (const Case& c : cases) {
    BleuOptions options;
    options.smoothing = c.smoothing;
    options.smooth_value = c.value;
    options.tokenizer = c.tokenizer;
    options.effective_order = true;
    EXPECT_NEAR(c.expected, Corpus({hypothesis}, {{reference}}, options).score, 1e-3)
        << static_cast<int>(c.smoothing) << " " << c.value.value_or(-1);
  }
  BleuOptions exp;
  exp.effective_order = true;
  EXPECT_DOUBLE_EQ(8.493098745313148, Corpus({hypothesis}, {{reference}}, exp).score);
}

TEST(BleuTest, NoMatchAtAllIsZeroWhateverTheSmoothing) {  // #141
  for (const BleuSmoothing smoothing : {BleuSmoothing::kExp, BleuSmoothing::kNone, BleuSmoothing::kFloor,
                                        BleuSmoothing::kAddK}) {
    BleuOptions options;
    options.smoothing = smoothing;
    options.effective_order = true;
    EXPECT_EQ(0.0, Corpus({"this is a cat"}, {{"okay thanks"}}, options).score);
  }
}

TEST(BleuTest, LowercaseFoldsUnicodeLetters) {
  BleuOptions options;
  options.lowercase = true;
  EXPECT_NEAR(100.0, Corpus({"\u00dcBER DIE STRA\u00dfE GEHEN"}, {{"\u00fcber die stra\u00dfe gehen"}}, options).score, 1e-9);
  EXPECT_EQ(0.0, Corpus({"\u00dcBER DIE STRA\u00dfE GEHEN"}, {{"\u00fcber die stra\u00dfe gehen"}}).score);
}

TEST(BleuTest, RefusesStreamsOfAnotherLengthAndOptionsOutOfRange) {
  auto short_stream = kReferences;
  short_stream[1].pop_back();
  auto score = CorpusBleu(kHypotheses, short_stream);
  ASSERT_FALSE(score.ok());
  EXPECT_THAT(score.status().message(), HasSubstr("reference stream 1 has 2 lines for 3 hypotheses"));
  EXPECT_FALSE(CorpusBleu(kHypotheses, {}).ok());
  BleuOptions options;
  options.max_order = 0;
  EXPECT_THAT(CorpusBleu(kHypotheses, kReferences, options).status().message(), HasSubstr("max_order must be 1 to 32"));
  options.max_order = 4;
  options.smooth_value = -1;
  EXPECT_FALSE(CorpusBleu(kHypotheses, kReferences, options).ok());
}

}  // namespace
}  // namespace ergobench
