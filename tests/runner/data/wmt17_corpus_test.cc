#include "runner/data/wmt17_corpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::ElementsAre;

// The first lines of MLBench's reference_dictionary.ende.txt (33,708 lines in all).
constexpr std::string_view kDictionary =
    "'<pad>_'\n'<EOS>_'\n', _'\n'._'\n'the_'\n'_'\n'in_'\n'of_'\n'and_'\n'to_'\n'die_'\n'der_'\n";

ParallelSide Side(const std::vector<std::vector<int32_t>>& sentences) {
  ParallelSide side;
  for (const auto& s : sentences) {
    side.tokens.insert(side.tokens.end(), s.begin(), s.end());
    side.offsets.push_back(static_cast<int64_t>(side.tokens.size()));
  }
  return side;
}

TEST(Wmt17CorpusTest, TheDictionaryIsMlbenchsPaddedToItsEmbedding) {
  const StatusOr<Vocabulary> v = ParseWmt17Dictionary(kDictionary, "dict.en.txt");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(kWmt17VocabularySize, v->size());
  EXPECT_EQ(", _", v->Token(4));  // fairseq's id 3, its first subtoken after <pad> and <EOS>
  EXPECT_EQ("the_", v->Token(6));
  EXPECT_EQ("<pad0000>", v->Token(14));
  EXPECT_EQ("<pad00033697>", v->Token(kWmt17VocabularySize - 1));
  // Subtokens decode as tensor2tensor's: "the_" "die_" ", _" "and_" "._" is "the die, and."
  EXPECT_EQ("the die, and.", v->Decode({6, 12, 4, 10, 5, Vocabulary::kEnd, 6}));
}

TEST(Wmt17CorpusTest, SentencesTakeErgobenchsIdsWithoutTheirEos) {
  const Vocabulary v = *ParseWmt17Dictionary(kDictionary, "dict");
  // fairseq's ids: 5 "the_", 3 ", _", 4 "._", 2 <EOS>.
  const ParallelSide source = Side({{5, 3, 4, 2}, {10, 2}}), target = Side({{11, 2}, {5, 5, 5, 5, 2}});
  Wmt17CorpusOptions options{"test.en-de.en", "test.en-de.de", 3, {}};
  const StatusOr<ParallelCorpus> corpus = Wmt17CorpusOf(source, target, options, v);
  ASSERT_TRUE(corpus.ok()) << corpus.status().ToString();
  EXPECT_EQ(1, corpus->size());  // the second pair's target has 4 tokens, over max_length 3
  EXPECT_EQ(1, corpus->skipped);
  EXPECT_THAT(corpus->source.Sentence(0), ElementsAre(6, 4, 5));
  EXPECT_THAT(corpus->target.Sentence(0), ElementsAre(12));
  EXPECT_EQ("die", v.Decode(corpus->target.Sentence(0)));
}

TEST(Wmt17CorpusTest, HostileDictionariesAndSentencesNameWhatIsWrong) {
  const auto dictionary_error = [](std::string_view text) { return ParseWmt17Dictionary(text, "dict.en.txt").status().message(); };
  EXPECT_EQ("dict.en.txt:3: not a quoted subtoken such as 'the_'", dictionary_error("'<pad>_'\n'<EOS>_'\nthe_\n"));
  EXPECT_EQ("dict.en.txt:3: not a quoted subtoken such as 'the_'", dictionary_error("'<pad>_'\n'<EOS>_'\n''\n"));
  EXPECT_EQ("dict.en.txt:1: '<pad>_' must come here", dictionary_error("'<EOS>_'\n'<pad>_'\n'a_'\n"));
  EXPECT_EQ("dict.en.txt:2: '<EOS>_' must come here", dictionary_error("'<pad>_'\n'a_'\n'b_'\n"));
  EXPECT_EQ("dict.en.txt: subtoken 2: 'a_' again (id 4)", dictionary_error("'<pad>_'\n'<EOS>_'\n'a_'\n'a_'\n"));
  EXPECT_EQ("dict.en.txt: subtoken 1: '<\\s>' is a special token, given by ergobench",
            dictionary_error("'<pad>_'\n'<EOS>_'\n'<\\s>'\n"));
  EXPECT_EQ("nothing: cannot be read", ReadWmt17Dictionary("nothing").status().message());

  const Vocabulary v = *ParseWmt17Dictionary(kDictionary, "dict");
  const auto corpus_error = [&](const std::vector<std::vector<int32_t>>& source, const std::vector<std::vector<int32_t>>& target) {
    return Wmt17CorpusOf(Side(source), Side(target), {"s", "t", 0, {}}, v).status().message();
  };
  EXPECT_EQ("s holds 1 sentences, t 2: a parallel corpus has one on each side for each pair", corpus_error({{5, 2}}, {{5, 2}, {5, 2}}));
  EXPECT_EQ("s: sentence 0 does not end in <EOS>", corpus_error({{5}}, {{5, 2}}));
  EXPECT_EQ("t: sentence 0 does not end in <EOS>", corpus_error({{5, 2}}, {{}}));
  EXPECT_EQ("s: sentence 1 holds the special id 1", corpus_error({{5, 2}, {5, 1, 2}}, {{5, 2}, {5, 2}}));
  EXPECT_EQ("s: sentence 0 holds the special id 2", corpus_error({{2, 2}}, {{5, 2}}));
  EXPECT_EQ("t: sentence 0 holds id 33711, past the dictionary's last (33710)", corpus_error({{5, 2}}, {{33711, 2}}));
  EXPECT_EQ("", corpus_error({{33710, 2}}, {{3, 2}}));  // the last padding token is an id like any
}

}  // namespace
}  // namespace ergobench
