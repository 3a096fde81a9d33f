#include "runner/data/parallel_corpus.h"

#include <cstdio>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/data/synthetic_translation.h"

namespace ergobench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Error(const StatusOr<Vocabulary>& v) { return v.ok() ? "" : v.status().message(); }

TEST(VocabularyTest, SpecialTokensFirstThenTheFileInOrder) {
  const Vocabulary v = *Vocabulary::Parse("news\nnew@@\ns\npaper  \n", "vocab.bpe.32000");
  EXPECT_EQ(8, v.size());
  EXPECT_EQ("<pad>", v.Token(0));
  EXPECT_EQ("<\\s>", v.Token(3));
  EXPECT_EQ(4, v.Id("news"));
  EXPECT_EQ(7, v.Id("paper"));
  EXPECT_THAT(v.Encode(" new@@ s  paper zebra"), ElementsAre(5, 6, 7, Vocabulary::kUnknown));
}

TEST(VocabularyTest, DecodingJoinsBpePiecesAndStopsAtTheEnd) {
  const Vocabulary v = *Vocabulary::Parse("news\nnew@@\ns\npaper\nend@@", "vocab");
  EXPECT_EQ("news paper", v.Decode({Vocabulary::kBegin, 5, 6, 7, Vocabulary::kEnd, 4, 4}));
  EXPECT_EQ("news <unk> paper", v.Decode({4, Vocabulary::kPad, 99, 7}));
  EXPECT_EQ("paper end", v.Decode({7, 8}));  // a last piece with nothing to join
}

TEST(VocabularyTest, RefusesWhatIsNotAVocabularyNamingTheLine) {
  EXPECT_THAT(Error(Vocabulary::Parse("a\n\nb", "v")), HasSubstr("v:2: a blank token"));
  EXPECT_THAT(Error(Vocabulary::Parse("a\nb\na", "v")), HasSubstr("v:3: 'a' again (id 4)"));
  EXPECT_THAT(Error(Vocabulary::Parse("a\n<s>", "v")), HasSubstr("v:2: '<s>' is a special token"));
  EXPECT_THAT(Error(Vocabulary::Parse("a b", "v")), HasSubstr("v:1: 'a b' holds whitespace"));
  EXPECT_THAT(Error(Vocabulary::Parse(" a", "v")), HasSubstr("holds whitespace"));
  EXPECT_THAT(Error(Vocabulary::Parse("", "v")), HasSubstr("v: no tokens"));
  EXPECT_THAT(Error(Vocabulary::Parse(std::string(2000, 'x'), "v")), HasSubstr("a token of 2000 bytes (at most 1024)"));
  EXPECT_THAT(Error(Vocabulary::FromFile("/nonexistent/vocab")), HasSubstr("/nonexistent/vocab: cannot be read"));
}

class ParallelCorpusTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/parallel_corpus_test." + name;
    std::ofstream(path, std::ios::binary) << text;
    paths_.push_back(path);
    return path;
  }
  void TearDown() override {
    for (const std::string& path : paths_) std::remove(path.c_str());
  }
  std::vector<std::string> paths_;
};

TEST_F(ParallelCorpusTest, ReadsPairsAndSkipsThoseTooLong) {
  const Vocabulary v = *Vocabulary::Parse("a\nb\nc\nx\ny", "vocab");
  ParallelCorpusOptions options;
  options.source_path = Write("en", "a b\na b c a b c\nc\n");
  options.target_path = Write("de", "x\ny\ny x y\n");
  options.max_length = 3;
  const ParallelCorpus corpus = *ReadParallelCorpus(options, v);
  EXPECT_EQ(2, corpus.source.size());
  EXPECT_EQ(1, corpus.skipped);
  EXPECT_THAT(corpus.source.Sentence(0), ElementsAre(4, 5));
  EXPECT_THAT(corpus.target.Sentence(0), ElementsAre(7));
  EXPECT_THAT(corpus.source.Sentence(1), ElementsAre(6));
  EXPECT_THAT(corpus.target.Sentence(1), ElementsAre(8, 7, 8));
  options.max_pairs = 1;
  options.max_length = 0;
  EXPECT_EQ(1, ReadParallelCorpus(options, v)->source.size());
}

TEST_F(ParallelCorpusTest, RefusesSidesOfDifferentLengthsAndEndlessLines) {
  const Vocabulary v = *Vocabulary::Parse("a", "vocab");
  ParallelCorpusOptions options;
  options.source_path = Write("en", "a\na\na\n");
  options.target_path = Write("de", "a\na\n");
  EXPECT_THAT(ReadParallelCorpus(options, v).status().message(),
              HasSubstr(options.target_path + " ends at line 2, " + options.source_path + " goes on"));
  options.target_path = Write("de2", "a\n" + std::string(100, 'a') + "\na\n");
  options.max_line_bytes = 64;
  EXPECT_THAT(ReadParallelCorpus(options, v).status().message(),
              HasSubstr(options.target_path + ":2: a line longer than 64 bytes"));
  options.source_path = "/nonexistent/train.en";
  EXPECT_THAT(ReadParallelCorpus(options, v).status().message(), HasSubstr("/nonexistent/train.en: cannot be read"));
}

TEST_F(ParallelCorpusTest, TheSyntheticPairWrittenAndReadBackIsWhatItGenerated) {
  const SyntheticLanguagePair pair = *SyntheticLanguagePair::Create({});
  std::vector<std::string> words = pair.SourceWords();
  for (const std::string& word : pair.TargetWords()) words.push_back(word);
  const Vocabulary v = *Vocabulary::FromWords(words);
  std::string source, target;
  for (uint64_t i = 0; i < 20; ++i) {
    source += pair.Sentence(i).source + "\n";
    target += pair.Sentence(i).target + "\n";
  }
  ParallelCorpusOptions options;
  options.source_path = Write("src", source);
  options.target_path = Write("tgt", target);
  const ParallelCorpus corpus = *ReadParallelCorpus(options, v);
  ASSERT_EQ(20, corpus.target.size());
  for (int64_t i = 0; i < 20; ++i) EXPECT_EQ(pair.Sentence(static_cast<uint64_t>(i)).target, v.Decode(corpus.target.Sentence(i)));
}

}  // namespace
}  // namespace ergobench
