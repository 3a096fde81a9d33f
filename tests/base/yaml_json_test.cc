#include "base/yaml_json.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace ergobench {
namespace {

nlohmann::json ParseOne(const std::string& text) {
  auto docs = ParseYamlDocuments(text, "test.yaml");
  EXPECT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ(docs->size(), 1u);
  return docs->front();
}

TEST(YamlJsonTest, QuotedScalarsStayStrings) {
  nlohmann::json doc = ParseOne("a: \"1.10\"\nb: '42'\nc: \"true\"\nd: \"~\"\n");
  EXPECT_EQ(doc["a"], "1.10");
  EXPECT_EQ(doc["b"], "42");
  EXPECT_EQ(doc["c"], "true");
  EXPECT_EQ(doc["d"], "~");
}

TEST(YamlJsonTest, PlainScalarsFollowCoreSchema) {
  nlohmann::json doc = ParseOne(
      "float: 1.10\nint: 42\nneg: -7\nhex: 0x1F\noct: 0o17\nexp: 1e3\n"
      "t: true\nf: False\nn1: ~\nn2: null\nn3:\nyes: yes\nno: off\nver: 1.2.3\n");
  EXPECT_TRUE(doc["float"].is_number_float());
  EXPECT_DOUBLE_EQ(doc["float"].get<double>(), 1.1);
  EXPECT_EQ(doc["int"], 42);
  EXPECT_TRUE(doc["int"].is_number_integer());
  EXPECT_EQ(doc["neg"], -7);
  EXPECT_EQ(doc["hex"], 31);
  EXPECT_EQ(doc["oct"], 15);
  EXPECT_DOUBLE_EQ(doc["exp"].get<double>(), 1000.0);
  EXPECT_EQ(doc["t"], true);
  EXPECT_EQ(doc["f"], false);
  EXPECT_TRUE(doc["n1"].is_null());
  EXPECT_TRUE(doc["n2"].is_null());
  EXPECT_TRUE(doc["n3"].is_null());
  // YAML 1.1's booleans are plain strings in 1.2.
  EXPECT_EQ(doc["yes"], "yes");
  EXPECT_EQ(doc["no"], "off");
  EXPECT_EQ(doc["ver"], "1.2.3");
}

TEST(YamlJsonTest, SpecialFloats) {
  EXPECT_TRUE(std::isinf(ResolvePlainScalar(".inf").get<double>()));
  EXPECT_LT(ResolvePlainScalar("-.Inf").get<double>(), 0);
  EXPECT_TRUE(std::isnan(ResolvePlainScalar(".NaN").get<double>()));
  EXPECT_EQ(ResolvePlainScalar(".nan."), ".nan.");
}

TEST(YamlJsonTest, ExplicitStrTagKeepsText) {
  nlohmann::json doc = ParseOne("v: !!str 123\n");
  EXPECT_EQ(doc["v"], "123");
}

TEST(YamlJsonTest, NestedStructuresAndAnchors) {
  nlohmann::json doc = ParseOne("base: &b {x: 1}\nlist: [1, two, *b]\n");
  EXPECT_EQ(doc["list"][0], 1);
  EXPECT_EQ(doc["list"][1], "two");
  EXPECT_EQ(doc["list"][2]["x"], 1);
}

// The audit's two documents: an 85-byte self-reference segfaulted (endless recursion), and a
// 380-byte "billion laughs" grew to 3 GB before it aborted. Both are clear errors now.
TEST(YamlJsonTest, ASelfReferencingAliasIsAnError) {
  for (const char* text : {"a: &loop\n  b: *loop\n", "&x [1, *x]\n", "spec:\n  task: 0a\n  more: &m {inner: [*m]}\n"}) {
    auto docs = ParseYamlDocuments(text, "loop.yaml");
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(docs.status().message().find("loop.yaml:"), std::string::npos) << docs.status().message();
    EXPECT_NE(docs.status().message().find("refers to a node that contains it"), std::string::npos)
        << docs.status().message();
  }
}

TEST(YamlJsonTest, AliasExpansionIsBounded) {
  std::string text = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    const std::string prev(1, static_cast<char>(level - 1));
    text += std::string(1, level) + ": &" + level + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev +
            ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n";
  }
  ASSERT_LT(text.size(), 400u);
  auto docs = ParseYamlDocuments(text, "laughs.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(docs.status().message().find("laughs.yaml: aliases expand"), std::string::npos) << docs.status().message();
}

// Found by the fuzzer: yaml-cpp 0.7 loops forever on ",\0". YAML allows no control characters
// but tab, line feed and carriage return, so they are refused before the parser sees them.
TEST(YamlJsonTest, ControlCharactersAreRefusedWithTheirPlace) {
  auto docs = ParseYamlDocuments(std::string(",\0", 2), "nul.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "nul.yaml:1:2: control character U+0000 is not allowed in YAML");
  docs = ParseYamlDocuments("a: 1\nb: x\x14y\n", "dc4.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "dc4.yaml:2:5: control character U+0014 is not allowed in YAML");
  EXPECT_TRUE(ParseYamlDocuments("a:\t1\r\nb: 2\n", "ok.yaml").ok());
}

// Found by the fuzzer: a spec holding invalid UTF-8 loaded fine, and then every JSON encoding
// of it threw (`ergobench validate` and `run` aborted). YAML is Unicode text: refused at the door.
TEST(YamlJsonTest, InvalidUtf8IsRefusedWithItsPlace) {
  auto docs = ParseYamlDocuments("spec:\n  path: /usr\xff\xfe/share\n", "bytes.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "bytes.yaml:2:13: invalid UTF-8");
  EXPECT_TRUE(ParseYamlDocuments("name: caf\u00e9\n", "ok.yaml").ok());
}

// Found by the fuzzer: yaml-cpp 0.7's LoadAll reports empty documents forever on a lone ","
// (jbeder/yaml-cpp#1040, fixed upstream in 2024). Documents are read from the parser's events,
// and a parse that stops making progress is an error.
TEST(YamlJsonTest, InputTheParserCannotGetPastIsAnError) {
  for (const char* text : {",", ",' ", "a: 1\n---\n,\n"}) {
    auto docs = ParseYamlDocuments(text, "stuck.yaml");
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_NE(docs.status().message().find("stuck.yaml"), std::string::npos);
    EXPECT_NE(docs.status().message().find("malformed YAML"), std::string::npos) << docs.status().message();
  }
}

TEST(YamlJsonTest, ReusedAnchorsWithinTheBudgetExpand) {
  nlohmann::json doc = ParseOne("base: &r {cpu: \"2\", memory: 4Gi}\nworkers: [*r, *r, *r, *r]\n");
  ASSERT_EQ(doc["workers"].size(), 4u);
  EXPECT_EQ(doc["workers"][3]["memory"], "4Gi");
}

TEST(YamlJsonTest, SeveralDocumentsSkippingEmptyOnes) {
  auto docs = ParseYamlDocuments("---\na: 1\n---\n---\nb: 2\n...\n", "multi.yaml");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0]["a"], 1);
  EXPECT_EQ((*docs)[1]["b"], 2);
}

TEST(YamlJsonTest, MalformedYamlNamesFileAndLine) {
  auto docs = ParseYamlDocuments("a: 1\nb: [1, 2\nc: 3\n", "bad.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(docs.status().message().find("bad.yaml:"), std::string::npos) << docs.status().message();
  EXPECT_NE(docs.status().message().find("malformed YAML"), std::string::npos);
}

TEST(YamlJsonTest, DuplicateKeysAreRejected) {
  auto docs = ParseYamlDocuments("a: 1\na: 2\n", "dup.yaml");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("duplicate key \"a\""), std::string::npos);
  EXPECT_NE(docs.status().message().find("dup.yaml:2:1"), std::string::npos) << docs.status().message();
}

TEST(YamlJsonTest, HugeIntegersBecomeNumbers) {
  EXPECT_TRUE(ResolvePlainScalar("123456789012345678901234567890").is_number_float());
}

// The audit's crash: std::regex recursed once per character, and a plain scalar of 100,000
// digits (`workers: 1111...`) overflowed the stack. Each form is now resolved by a loop.
TEST(YamlJsonTest, PlainScalarsOfAHundredThousandCharactersResolve) {
  const std::string digits(100000, '1');
  auto docs = ParseYamlDocuments("workers: " + digits + "\n", "long.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  const nlohmann::json& workers = (*docs)[0]["workers"];
  ASSERT_TRUE(workers.is_number_float());
  EXPECT_TRUE(std::isinf(workers.get<double>()));
  EXPECT_TRUE(std::isinf(ResolvePlainScalar("0x" + std::string(100000, 'f')).get<double>()));
  EXPECT_EQ(ResolvePlainScalar("0o" + std::string(100000, '8')), "0o" + std::string(100000, '8'));
  EXPECT_TRUE(ResolvePlainScalar("." + digits + "e1").is_number_float());
  EXPECT_EQ(ResolvePlainScalar(digits + "x"), digits + "x");
  EXPECT_EQ(ResolvePlainScalar(std::string(100000, 'a')), std::string(100000, 'a'));
}

// Each form of the core schema, and the near misses that stay strings.
TEST(YamlJsonTest, CoreSchemaFormsAndNearMisses) {
  EXPECT_EQ(ResolvePlainScalar("-12"), -12);
  EXPECT_EQ(ResolvePlainScalar("+12"), 12);
  EXPECT_EQ(ResolvePlainScalar("0o17"), 15);
  EXPECT_EQ(ResolvePlainScalar("0x1F"), 31);
  EXPECT_EQ(ResolvePlainScalar("1.5e3"), 1500.0);
  EXPECT_EQ(ResolvePlainScalar("-.5"), -0.5);
  EXPECT_EQ(ResolvePlainScalar("7."), 7.0);
  EXPECT_TRUE(std::isinf(ResolvePlainScalar("+.inf").get<double>()));
  EXPECT_TRUE(ResolvePlainScalar("") == nullptr);
  for (const char* text : {"-", "+", ".", "0o", "0x", "0o8", "0xg", "1e", "1e+", "--1", "1.2.3", ".e1", "TRUE1",
                           "nul", ".Nan", "-.nan", "+-1", "0X1F"}) {
    EXPECT_EQ(ResolvePlainScalar(text), text) << text;
  }
}

// YAML's \N and \_ escapes are U+0085 and U+00A0, in UTF-8 as every other string (yaml-cpp
// hands them over as one byte each).
TEST(YamlJsonTest, LatinEscapesDecodeToUtf8) {
  EXPECT_EQ(ParseOne("a: \"x\\N y\\_z \\N\\N é\\_\"\n")["a"], "x\u0085 y\u00a0z \u0085\u0085 é\u00a0");
}

// What `-o yaml` writes reads back as the very value written: strings that would read as other
// types quoted, floats to the last digit, the syntax's own characters escaped.
TEST(YamlJsonTest, ToYamlReadsBackAsTheSameValue) {
  const nlohmann::json value = {
      {"strings", {"true", "false", "True", "1.10", "42", "-7", "1e3", ".5", "~", "null", "", " lead", "trail ",
                   "a: b", "- item", "#hash", "x #y", "{flow}", "[1]", "'quote'", "\"double\"", "line\nbreak",
                   "tab\there", "\x01" "bell", "\r", "a\rb", "\t", "del\x7f", "ü\x7f\xc2\x85", "ü ∑ 漢字", ".inf", ".nan", "yes", "no", "on", "@at", "`tick", "%pct",
                   "*star", "&amp", "!bang", "|bar", ">gt", "?q", ":colon", "ok"}},
      {"numbers", {0, -1, 9007199254740993LL, 1.5, -0.25, 0.1, 1e300, 5e-324, -0.0, 1.0}},
      {"booleans", {true, false}},
      {"null", nullptr},
      {"empty object", nlohmann::json::object()},
      {"empty list", nlohmann::json::array()},
      {"nested", {{{"a", {{"b", {1, {{"c", "d"}}}}}}}, nlohmann::json::array({nlohmann::json::array()})}},
      {"1", "a key that reads as a number"},
      {"true", "and one that reads as a boolean"},
      {std::string(2000, 'k'), "a key longer than YAML's 1024 characters of an implicit key"}};
  const std::string yaml = ToYaml(value);
  auto docs = ParseYamlDocuments(yaml, "out.yaml");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString() << "\n" << yaml;
  ASSERT_EQ(docs->size(), 1u) << yaml;
  EXPECT_EQ(docs->front(), value) << yaml;
  EXPECT_EQ(docs->front()["numbers"][9].dump(), "1.0") << yaml;  // a float stays a float
  EXPECT_TRUE(std::signbit(docs->front()["numbers"][8].get<double>())) << yaml;
}

TEST(YamlJsonTest, ToYamlWritesNanAndInfinities) {
  const nlohmann::json value = {std::nan(""), std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  EXPECT_EQ(ToYaml(value), "- .nan\n- .inf\n- -.inf\n");
  auto docs = ParseYamlDocuments(ToYaml(value), "out.yaml");
  ASSERT_TRUE(docs.ok());
  EXPECT_TRUE(std::isnan(docs->front()[0].get<double>()));
  EXPECT_EQ(docs->front()[1], value[1]);
  EXPECT_EQ(docs->front()[2], value[2]);
}

// YAML 1.1 readers (PyYAML, and go-yaml v2 behind kubectl) type more plain scalars than 1.2
// does: what ToYaml writes types alike in both.
TEST(YamlJsonTest, ToYamlQuotesWhatYaml11WouldRetype) {
  EXPECT_EQ(ToYaml({"yes", "No", "on", "OFF", "y", "1_000", "0b1", "1:20", "017", "ok"}),
            "- \"yes\"\n- \"No\"\n- \"on\"\n- \"OFF\"\n- \"y\"\n- \"1_000\"\n- \"0b1\"\n- \"1:20\"\n- \"017\"\n- ok\n");
  EXPECT_EQ(ToYaml({5e-05, 1e300, 0.5}), "- 5.0e-05\n- 1.0e+300\n- 0.5\n");
}

TEST(YamlJsonTest, ToYamlIsBlockStyle) {
  EXPECT_EQ(ToYaml({{"kind", "Benchmark"}, {"spec", {{"workers", 2}, {"hyperparameters", {{"lr", "0.1"}}}}}}),
            "kind: Benchmark\nspec:\n  hyperparameters:\n    lr: \"0.1\"\n  workers: 2\n");
}

}  // namespace
}  // namespace ergobench
