#include "runner/metrics/moses_detokenizer.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

// sacremoses' detokenizer tests (test_tokenizer.py's TestDetokenizer), the tokens written with
// spaces as MLBench's files hold them.
TEST(MosesDetokenizerTest, SacremosesTestCases) {
  EXPECT_EQ("This, is a sentence with weird \u00bb symbols \u2026 appearing everywhere \u00bf",
            MosesDetokenize("This , is a sentence with weird \u00bb symbols \u2026 appearing everywhere \u00bf", "en"));
  EXPECT_EQ("This ain't funny. It's actually hillarious, yet double Ls. | [] < > [] & You're gonna shake it off? Don't?",
            MosesDetokenize("This ain &apos;t funny . It &apos;s actually hillarious , yet double Ls . &#124; &#91; &#93; "
                            "&lt; &gt; &#91; &#93; &amp; You &apos;re gonna shake it off ? Don &apos;t ?",
                            "en"));
  EXPECT_EQ("foo-bar", MosesDetokenize("foo @-@ bar", "en"));
  EXPECT_EQ("By the mid 1990s a version of the game became a Latvian television series (with a parliamentary "
            "setting, and played by Latvian celebrities).",
            MosesDetokenize("By the mid 1990s a version of the game became a Latvian television series ( with a "
                            "parliamentary setting , and played by Latvian celebrities ) .",
                            "en"));
  EXPECT_EQ("Japan is 日本 in Japanese.", MosesDetokenize("Japan is 日 本 in Japanese .", "en"));
}

// German, 4a's target: quotes alternate opening and closing, currency joins what follows, an
// apostrophe is no contraction.
TEST(MosesDetokenizerTest, GermanQuotesCurrencyAndHyphens) {
  EXPECT_EQ("Er sagte: \"Das kostet $5-mal mehr.\"", MosesDetokenize("Er sagte : &quot; Das kostet $ 5 @-@ mal mehr . &quot;", "de"));
  EXPECT_EQ("„Haus“ und 's", MosesDetokenize("„ Haus “ und &apos;s", "de"));
  EXPECT_EQ("the Jones' house", MosesDetokenize("the Jones &apos; house", "en"));
  EXPECT_EQ("", MosesDetokenize("   ", "de"));
}

}  // namespace
}  // namespace ergobench
