#include "runner/data/text_corpus.h"

#include <zlib.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace ergobench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class TextCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/corpus-" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string WriteGzip(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    gzFile file = gzopen(path.c_str(), "wb");
    gzwrite(file, text.data(), static_cast<unsigned>(text.size()));
    gzclose(file);
    return path;
  }
  StatusOr<CorpusTokens> Load(const std::string& path, int64_t max_tokens = 0) {
    CorpusOptions options;
    options.path = path;
    options.max_tokens = max_tokens;
    return LoadCorpus(options, bytes_);
  }

  std::string dir_;
  BpeTokenizer bytes_ = BpeTokenizer::ByteLevel();
};

TEST_F(TextCorpusTest, TextFilesAreDocumentsInNameOrderEachEndedByEndOfText) {
  Write("b.txt", "bb");
  Write("a.txt", "a");
  Write("sub/c.txt", "c");
  auto corpus = Load(dir_);
  ASSERT_TRUE(corpus.ok()) << corpus.status().ToString();
  EXPECT_THAT(corpus->tokens, ElementsAre('a', 256, 'b', 'b', 256, 'c', 256));
  EXPECT_EQ(corpus->documents, 3);
  EXPECT_EQ(corpus->files, 3);
  EXPECT_EQ(corpus->bytes, 4);
}

TEST_F(TextCorpusTest, JsonLinesTakeTheTextFieldAndMayBeGzipped) {
  WriteGzip("part-1.jsonl.gz", "{\"id\": 1, \"text\": \"hi\"}\n\n{\"text\": \"yo\", \"meta\": {}}\n");
  auto corpus = Load(dir_);
  ASSERT_TRUE(corpus.ok()) << corpus.status().ToString();
  EXPECT_THAT(corpus->tokens, ElementsAre('h', 'i', 256, 'y', 'o', 256));
  EXPECT_EQ(corpus->documents, 2);
}

TEST_F(TextCorpusTest, BadLinesNameTheFileAndLine) {
  const std::string path = Write("x.jsonl", "{\"text\": \"ok\"}\nnot json\n");
  EXPECT_THAT(Load(path).status().message(), HasSubstr("x.jsonl:2: not a JSON object"));
  Write("x.jsonl", "{\"text\": \"ok\"}\n{\"body\": \"no text\"}\n");
  EXPECT_THAT(Load(path).status().message(), HasSubstr("x.jsonl:2: no string field \"text\""));
  EXPECT_THAT(Load(dir_ + "/missing").status().message(), HasSubstr("no such file or folder"));
  std::filesystem::create_directories(dir_ + "/empty");
  EXPECT_THAT(Load(dir_ + "/empty").status().message(), HasSubstr("holds no files"));
  CorpusOptions options;
  options.path = path;
  options.format = "csv";
  EXPECT_THAT(LoadCorpus(options, bytes_).status().message(), HasSubstr("corpusFormat: expected auto, text or jsonl"));
}

TEST_F(TextCorpusTest, StopsAtMaxTokens) {
  Write("a.txt", "abcdef");
  Write("b.txt", "ghi");
  auto corpus = Load(dir_, 4);
  ASSERT_TRUE(corpus.ok());
  EXPECT_THAT(corpus->tokens, ElementsAre('a', 'b', 'c', 'd'));
  EXPECT_EQ(corpus->files, 1);
}

TEST_F(TextCorpusTest, ReadsARealCorpusShippedByDebian) {
  // base-files' license texts: byte-level, every byte is a token and every file one document.
  auto corpus = Load("/usr/share/common-licenses");
  ASSERT_TRUE(corpus.ok()) << corpus.status().ToString();
  EXPECT_GT(corpus->bytes, 100000);
  EXPECT_EQ(corpus->documents, corpus->files);
  EXPECT_EQ(static_cast<int64_t>(corpus->tokens.size()), corpus->bytes + corpus->documents);
}

TEST(PackedSequenceCountTest, WindowsOfSPlusOneTokensEverySTokens) {
  EXPECT_EQ(PackedSequenceCount(8, 8), 0);  // 8 tokens hold no 9-token window
  EXPECT_EQ(PackedSequenceCount(9, 8), 1);
  EXPECT_EQ(PackedSequenceCount(16, 8), 1);
  EXPECT_EQ(PackedSequenceCount(17, 8), 2);
  EXPECT_EQ(PackedSequenceCount(1000, 0), 0);
}

}  // namespace
}  // namespace ergobench
