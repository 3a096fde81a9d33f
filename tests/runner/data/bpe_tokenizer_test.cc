#include "runner/data/bpe_tokenizer.h"

#include <cstdio>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ergobench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// GPT-2's printable stand-in for byte b (bytes_to_unicode), built as the reference does.
std::string ByteSymbol(int b) {
  int shifted = 0;
  for (int x = 0; x < 256; ++x) {
    const bool printable = (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE && x <= 0xFF);
    const int cp = printable ? x : 256 + shifted++;
    if (x == b) {
      std::string out;
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
      return out;
    }
  }
  return "";
}

// A vocabulary in GPT-2's format: the 256 byte tokens (id = byte), then the merges' results
// in merge order, then <|endoftext|>.
const char* const kMerges[] = {"Ġ t", "h e", "Ġt he", "i n", "Ġ c", "a t", "Ġc at", "Ġ h", "Ġh at"};

std::string VocabJson() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[ByteSymbol(b)] = b;
  int id = 256;
  for (const char* merge : kMerges) {
    std::string m = merge;
    vocab[m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1)] = id++;
  }
  vocab["<|endoftext|>"] = id;
  return vocab.dump();
}

std::string MergesTxt() {
  std::string text = "#version: 0.2\n";
  for (const char* merge : kMerges) text += std::string(merge) + "\n";
  return text;
}

TEST(PreTokenizeTest, SplitsAsGpt2sRegex) {
  EXPECT_THAT(PreTokenize("Hello world's  test\n\n 123!!"),
              ElementsAre("Hello", " world", "'s", " ", " test", "\n\n", " 123", "!!"));
  EXPECT_THAT(PreTokenize("don't?'s  "), ElementsAre("don", "'t", "?'", "s", "  "));
  EXPECT_THAT(PreTokenize("Grüße 東京\tx"), ElementsAre("Grüße", " 東京", "\t", "x"));
  EXPECT_THAT(PreTokenize("a\xff\xfe b"), ElementsAre("a", "\xff\xfe", " b"));
  EXPECT_THAT(PreTokenize(""), ElementsAre());
}

TEST(BpeTokenizerTest, MergesByRankIntoTheVocabularysIds) {
  auto tokenizer = BpeTokenizer::Parse(VocabJson(), MergesTxt());
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_EQ(tokenizer->vocab_size(), 266);
  EXPECT_EQ(tokenizer->end_of_text(), 265);
  // Ids: Ġt 256, he 257, Ġthe 258, in 259, Ġc 260, at 261, Ġcat 262, Ġh 263, Ġhat 264.
  // "the" -> t + he (no rule makes "the" without a space); " cat" -> Ġc + at -> Ġcat;
  // " in" -> Ġ + in; " the" -> Ġt + he -> Ġthe; " hat" -> at first (rank 5 < 7), then Ġh, Ġhat.
  EXPECT_THAT(tokenizer->Encode("the cat in the hat"), ElementsAre('t', 257, 262, ' ', 259, 258, 264));
}

TEST(BpeTokenizerTest, RoundTripsAnyBytes) {
  auto tokenizer = BpeTokenizer::Parse(VocabJson(), MergesTxt());
  ASSERT_TRUE(tokenizer.ok());
  BpeTokenizer bytes = BpeTokenizer::ByteLevel();
  for (const std::string& text :
       {std::string(""), std::string("the cat in the hat, the hat in the cat"), std::string("  two  spaces  "),
        std::string("tabs\tand\nnew\r\nlines\n\n"), std::string("Grüße aus Köln, ça va? 東京 🚀"),
        std::string("\xff\xfe broken \xc3 utf-8 \xed\xa0\x80"), std::string("don't they'll we've 1234 5678"),
        std::string("\0nul\0", 5)}) {
    const std::vector<int32_t> ids = tokenizer->Encode(text);
    auto decoded = tokenizer->Decode(ids);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(*decoded, text);
    EXPECT_EQ(*bytes.Decode(bytes.Encode(text)), text);
    EXPECT_EQ(bytes.Encode(text).size(), text.size());
  }
}

TEST(BpeTokenizerTest, EndOfTextDecodesToItsName) {
  BpeTokenizer bytes = BpeTokenizer::ByteLevel();
  EXPECT_EQ(bytes.vocab_size(), 257);
  EXPECT_EQ(*bytes.Decode({'a', bytes.end_of_text(), 'b'}), "a<|endoftext|>b");
  EXPECT_THAT(bytes.Decode({257}).status().message(), HasSubstr("token id 257 is not in the vocabulary of 257"));
}

TEST(BpeTokenizerTest, ReadsFiles) {
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "/vocab.json") << VocabJson();
  std::ofstream(dir + "/merges.txt") << MergesTxt();
  auto tokenizer = BpeTokenizer::FromFiles(dir + "/vocab.json", dir + "/merges.txt");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_THAT(tokenizer->Encode(" the"), ElementsAre(258));
  EXPECT_THAT(BpeTokenizer::FromFiles(dir + "/missing.json", dir + "/merges.txt").status().message(),
              HasSubstr("missing.json: cannot open"));
}

TEST(BpeTokenizerTest, BadFilesSayWhatIsWrong) {
  EXPECT_THAT(BpeTokenizer::Parse("[1, 2]", "").status().message(), HasSubstr("not a JSON object"));
  nlohmann::json vocab = nlohmann::json::parse(VocabJson());
  vocab.erase(ByteSymbol(0));
  vocab["<|endoftext|>"] = 0;
  EXPECT_THAT(BpeTokenizer::Parse(vocab.dump(), "").status().message(), HasSubstr("lacks the token of byte 0"));
  EXPECT_THAT(BpeTokenizer::Parse(VocabJson(), "#version: 0.2\nĠ t\nbad\n").status().message(),
              HasSubstr("merges line 3: expected two symbols separated by one space, got \"bad\""));
  vocab = nlohmann::json::parse(VocabJson());
  vocab.erase("<|endoftext|>");
  EXPECT_THAT(BpeTokenizer::Parse(vocab.dump(), "").status().message(), HasSubstr("no <|endoftext|>"));
}

}  // namespace
}  // namespace ergobench
