#include "base/json_reader.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace ergobench {
namespace {

// A YAML number of 100,000 digits is infinite; JSON would write it "null".
TEST(JsonReaderTest, StringFieldIsTheStringOrTheFallbackAndNeverThrows) {
  const nlohmann::json object = nlohmann::json::parse(R"({"kind": "Benchmark", "n": null, "i": 7, "o": {}})");
  EXPECT_EQ(StringField(object, "kind"), "Benchmark");
  for (const char* key : {"n", "i", "o", "absent"}) EXPECT_EQ(StringField(object, key, "none"), "none") << key;
  EXPECT_EQ(StringField(nlohmann::json::array({"kind"}), "kind"), "");
  EXPECT_EQ(StringField(nlohmann::json(), "kind"), "");
}

TEST(JsonReaderTest, ANumberPastDoubleIsShownAsInfinity) {
  EXPECT_EQ(ShowJson(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(ShowJson(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ShowJson(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(ShowJson(1.5), "1.5");
  EXPECT_EQ(ShowJson(std::string(100, 'a'), 10), "\"aaaaaa...");
  FieldErrors errors;
  const nlohmann::json object = {{"workers", std::numeric_limits<double>::infinity()}};
  ObjectReader reader(&object, "spec", &errors);
  int64_t workers = 0;
  reader.Int("workers", &workers);
  EXPECT_EQ(errors.ToString(), "spec.workers: must be an integer, got number inf");
}

}  // namespace
}  // namespace ergobench
