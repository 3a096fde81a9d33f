#include "runner/data/synthetic_translation.h"

#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/metrics/bleu.h"
#include "runner/metrics/tokenizer_13a.h"

namespace ergobench {
namespace {

using ::testing::HasSubstr;

SyntheticLanguagePair Pair(uint64_t seed = 1) {
  SyntheticPairOptions options;
  options.seed = seed;
  return *SyntheticLanguagePair::Create(options);
}

// The target stem of a source adjective or verb, and a noun's target word, from the gloss.
std::string Stem(const SyntheticLanguagePair& pair, const std::string& word, size_t suffix) {
  const std::string gloss = pair.Gloss(word);
  return gloss.substr(0, gloss.size() - suffix);
}

TEST(SyntheticLanguagePairTest, ReordersAdjectivesAndAgreesInGenderAndNumber) {
  const SyntheticLanguagePair pair = Pair();
  const std::vector<std::string> words = pair.SourceWords();  // the, a, some, and, adjectives, verbs, nouns
  const std::string big = words[4], red = words[5], see = words[4 + 24], cat = words[4 + 48], dog = words[4 + 50];
  // A noun's gender shows on its definite determiner.
  const std::string cat_gender = pair.Translate("the " + cat + " " + see + " the " + dog)->substr(1, 1);
  const std::string dog_gender = pair.Translate("the " + dog + " " + see + " the " + cat)->substr(1, 1);
  ASSERT_THAT(cat_gender, ::testing::AnyOf("o", "a"));
  EXPECT_EQ("l" + cat_gender + "s " + pair.Gloss(cat + "s") + " " + Stem(pair, red, 1) + cat_gender + "s " +
                Stem(pair, big, 1) + cat_gender + "s " + Stem(pair, see, 1) + "ed un" + dog_gender + " " +
                pair.Gloss(dog),
            *pair.Translate("the " + big + " " + red + " " + cat + "s " + see + " a " + dog));
}

TEST(SyntheticLanguagePairTest, EverySentenceTranslatesToItsTargetWithinTheVocabularies) {
  const SyntheticLanguagePair pair = Pair();
  const std::vector<std::string> source_words = pair.SourceWords();
  const std::vector<std::string> target_words = pair.TargetWords();
  const std::set<std::string> source_vocabulary(source_words.begin(), source_words.end());
  const std::set<std::string> target_vocabulary(target_words.begin(), target_words.end());
  EXPECT_EQ(source_words.size(), source_vocabulary.size());  // no word twice
  EXPECT_EQ(target_words.size(), target_vocabulary.size());
  EXPECT_EQ(4u + 24 + 24 + 2 * 64, source_words.size());
  EXPECT_EQ(9u + 4 * 24 + 2 * 24 + 2 * 64, target_words.size());
  for (uint64_t i = 0; i < 1000; ++i) {
    const SyntheticLanguagePair::Pair sentence = pair.Sentence(i);
    EXPECT_EQ(sentence.target, *pair.Translate(sentence.source)) << sentence.source;
    for (const std::string_view w : SplitOnWhitespace(sentence.source)) EXPECT_TRUE(source_vocabulary.count(std::string(w))) << w;
    for (const std::string_view w : SplitOnWhitespace(sentence.target)) EXPECT_TRUE(target_vocabulary.count(std::string(w))) << w;
  }
}

TEST(SyntheticLanguagePairTest, TheSameSeedGivesTheSameCorpusAnotherSeedAnother) {
  EXPECT_EQ(Pair(7).Sentence(123).source, Pair(7).Sentence(123).source);
  EXPECT_EQ(Pair(7).Sentence(123).target, Pair(7).Sentence(123).target);
  EXPECT_NE(Pair(7).Sentence(123).source, Pair(8).Sentence(123).source);
  EXPECT_NE(Pair(7).Sentence(123).source, Pair(7).Sentence(124).source);
}

// What BLEU can tell apart: the grammar's own translation scores 100, the dictionary alone far
// less (pinned: the corpus is deterministic).
TEST(SyntheticLanguagePairTest, APerfectTranslationScores100AndAWordForWordGlossFarLess) {
  const SyntheticLanguagePair pair = Pair();
  std::vector<std::string> targets, glosses;
  for (uint64_t i = 0; i < 500; ++i) {
    const SyntheticLanguagePair::Pair sentence = pair.Sentence(i);
    targets.push_back(sentence.target);
    glosses.push_back(pair.Gloss(sentence.source));
  }
  EXPECT_DOUBLE_EQ(100.0, CorpusBleu(targets, {targets})->score);
  EXPECT_EQ("BLEU = 10.63 57.0/13.4/6.2/2.7 (BP = 1.000 ratio = 1.000 hyp_len = 5593 ref_len = 5593)",
            CorpusBleu(glosses, {targets})->Format());
}

// The smaller pair task 4a's integration test learns (16 nouns, one clause a sentence, the
// tasks' seed and test sentences): its gloss scores far below that test's goal (50) too.
TEST(SyntheticLanguagePairTest, ASmallerPairsGlossScoresFarBelowItsTranslation) {
  SyntheticPairOptions options;
  options.seed = 42;
  options.nouns = 16;
  options.max_clauses = 1;
  const SyntheticLanguagePair pair = *SyntheticLanguagePair::Create(options);
  std::vector<std::string> targets, glosses;
  for (uint64_t i = 0; i < 200; ++i) {
    const SyntheticLanguagePair::Pair sentence = pair.Sentence((uint64_t{1} << 40) + i);  // the tasks' test pairs
    targets.push_back(sentence.target);
    glosses.push_back(pair.Gloss(sentence.source));
  }
  EXPECT_EQ("BLEU = 5.43 50.2/9.0/3.2/0.6 (BP = 1.000 ratio = 1.000 hyp_len = 1428 ref_len = 1428)",
            CorpusBleu(glosses, {targets})->Format());
}

TEST(SyntheticLanguagePairTest, NamesTheFirstWordOutsideTheGrammar) {
  const SyntheticLanguagePair pair = Pair();
  const std::vector<std::string> words = pair.SourceWords();
  const std::string see = words[4 + 24], cat = words[4 + 48];
  EXPECT_THAT(pair.Translate("the cat").status().message(), HasSubstr("word 2 ('cat'): a noun was expected"));
  EXPECT_THAT(pair.Translate("the " + cat).status().message(), HasSubstr("word 3 (the end): a verb was expected"));
  EXPECT_THAT(pair.Translate("a " + cat + "s " + see + " the " + cat).status().message(),
              HasSubstr("word 2 ('" + cat + "s'): the determiner and the noun disagree in number"));
  EXPECT_THAT(pair.Translate("the " + cat + " " + see + " the " + cat + " the").status().message(),
              HasSubstr("word 6 ('the'): 'and' or the end was expected"));
  EXPECT_THAT(pair.Translate("").status().message(), HasSubstr("word 1 (the end): a determiner"));
  SyntheticPairOptions options;
  options.nouns = 0;
  EXPECT_THAT(SyntheticLanguagePair::Create(options).status().message(), HasSubstr("nouns must be 1 to 4096, not 0"));
  options.nouns = 4;
  options.max_adjectives = 9;
  EXPECT_THAT(SyntheticLanguagePair::Create(options).status().message(), HasSubstr("max_adjectives must be 0 to 8"));
}

}  // namespace
}  // namespace ergobench
