// One table read both ways: what each kind of field writes, reads back, and reports.
#include "base/json_fields.h"

#include <gtest/gtest.h>

#include <limits>

namespace ergobench {
namespace {

using nlohmann::json;

struct Inner {
  std::string name;
  std::optional<double> value;
  bool operator==(const Inner&) const = default;
};

struct Outer {
  std::string text;
  int64_t count = 0;
  int64_t always = 0;
  std::optional<int64_t> maybe;
  bool flag = false;
  std::optional<bool> tri;
  std::map<std::string, std::string> labels;
  std::vector<std::string> names;
  std::map<std::string, double> numbers;
  json object = json::object();
  json list = json::array();
  Inner inner;
  std::optional<Inner> optional_inner;
  std::vector<Inner> items;
  std::map<std::string, Inner> by_name;
  Inner flat;
  std::string claim;  // under "nested", with no struct of its own
  json rest = json::object();
  bool operator==(const Outer&) const = default;
};

const JsonFields<Inner>& InnerFields() {
  static const JsonFields<Inner> fields = JsonFields<Inner>().Add("name", &Inner::name).Add("value", &Inner::value);
  return fields;
}

const JsonFields<Outer>& OuterFields() {
  static const JsonFields<Outer> nested = JsonFields<Outer>().Add("claim", &Outer::claim);
  static const JsonFields<Inner> flat = JsonFields<Inner>().Add("flatName", &Inner::name);
  static const JsonFields<Outer> fields = JsonFields<Outer>()
                                              .Add("text", &Outer::text)
                                              .Add("count", &Outer::count)
                                              .Add("always", &Outer::always, Written::kAlways)
                                              .Add("maybe", &Outer::maybe)
                                              .Add("flag", &Outer::flag)
                                              .Add("tri", &Outer::tri)
                                              .Add("labels", &Outer::labels)
                                              .Add("names", &Outer::names)
                                              .Add("numbers", &Outer::numbers)
                                              .Json("object", &Outer::object, JsonShape::kObject)
                                              .Json("list", &Outer::list, JsonShape::kList)
                                              .Object("inner", &Outer::inner, InnerFields())
                                              .Object("optionalInner", &Outer::optional_inner, InnerFields())
                                              .List("items", &Outer::items, InnerFields())
                                              .Map("byName", &Outer::by_name, InnerFields())
                                              .Inline(&Outer::flat, flat)
                                              .Within("nested", nested)
                                              .Rest(&Outer::rest);
  return fields;
}

TEST(JsonFields, AnEmptyObjectWritesOnlyWhatIsAlwaysWritten) {
  EXPECT_EQ(OuterFields().Encode(Outer{}), json({{"always", 0}}));
}

TEST(JsonFields, EveryKindWritesItsKeyAndReadsBackTheSameValue) {
  Outer o;
  o.text = "t";
  o.count = 3;
  o.always = 4;
  o.maybe = 0;  // held: written although zero
  o.flag = true;
  o.tri = false;
  o.labels = {{"a", "b"}};
  o.names = {"x", "y"};
  o.numbers = {{"samplesPerSecond", 5.5}};
  o.object = {{"k", 1}};
  o.list = {1, 2};
  o.inner = {"in", 1.5};
  o.optional_inner = Inner{};  // held: written although empty
  o.items = {{"i0", std::nullopt}, {"i1", 2.0}};
  o.by_name = {{"m", {"mm", 3.0}}};
  o.flat = {"f", std::nullopt};
  o.claim = "c";
  o.rest = {{"ownerReferences", json::array({1})}};
  const json encoded = OuterFields().Encode(o);
  EXPECT_EQ(encoded, json::parse(R"({
    "text": "t", "count": 3, "always": 4, "maybe": 0, "flag": true, "tri": false, "labels": {"a": "b"},
    "names": ["x", "y"], "numbers": {"samplesPerSecond": 5.5}, "object": {"k": 1}, "list": [1, 2],
    "inner": {"name": "in", "value": 1.5}, "optionalInner": {},
    "items": [{"name": "i0"}, {"name": "i1", "value": 2.0}], "byName": {"m": {"name": "mm", "value": 3.0}},
    "flatName": "f", "nested": {"claim": "c"}, "ownerReferences": [1]})"));
  FieldErrors errors;
  EXPECT_EQ(OuterFields().Decode(&encoded, "spec", &errors), o);
  EXPECT_TRUE(errors.empty()) << errors.ToString();
}

TEST(JsonFields, ANullReadsAsAbsentAndLeavesTheMemberAsItWas) {
  const json in = {{"text", nullptr}, {"maybe", nullptr}, {"inner", nullptr}, {"optionalInner", nullptr}};
  FieldErrors errors;
  Outer o;
  o.text = "kept";
  OuterFields().Read(&in, "spec", &errors, &o);
  EXPECT_EQ(o.text, "kept");
  EXPECT_FALSE(o.maybe.has_value());
  EXPECT_FALSE(o.optional_inner.has_value());
  EXPECT_TRUE(errors.empty()) << errors.ToString();
}

TEST(JsonFields, EachWrongValueIsReportedAtItsPath) {
  const json in = json::parse(R"({
    "text": 1, "count": "3", "object": [], "list": {}, "inner": {"name": 2, "extra": true},
    "items": [{"value": "x"}, 7], "byName": [1], "optionalInner": "no", "nested": {"claim": false}})");
  FieldErrors errors;
  // No Rest in this table: an unknown key is an error too.
  static const JsonFields<Outer> strict = JsonFields<Outer>()
                                              .Add("text", &Outer::text)
                                              .Add("count", &Outer::count)
                                              .Json("object", &Outer::object, JsonShape::kObject)
                                              .Json("list", &Outer::list, JsonShape::kList)
                                              .Object("inner", &Outer::inner, InnerFields())
                                              .Object("optionalInner", &Outer::optional_inner, InnerFields())
                                              .List("items", &Outer::items, InnerFields())
                                              .Map("byName", &Outer::by_name, InnerFields());
  json with_unknown = in;
  with_unknown["bogus"] = 1;
  { strict.Decode(&with_unknown, "spec", &errors); }
  const std::string all = errors.Joined();
  for (const char* want : {"spec.text: must be a string, got integer 1",
                           "spec.count: must be an integer, got string \"3\"",
                           "spec.object: must be an object, got list",
                           "spec.list: must be a list, got object",
                           "spec.inner.name: must be a string, got integer 2",
                           "spec.inner.extra",
                           "spec.items[0].value: must be a number, got string \"x\"",
                           "spec.items[1]: must be an object, got integer",
                           "spec.byName: must be an object, got list",
                           "spec.optionalInner: must be an object, got string",
                           "spec.bogus",
                           "spec.nested"}) {
    EXPECT_NE(all.find(want), std::string::npos) << want << " not in: " << all;
  }
}

TEST(JsonFields, RestKeepsNullsAndNeverOverwritesAModelledKey) {
  const json in = {{"text", "t"}, {"deletionTimestamp", nullptr}, {"finalizers", {"a"}}};
  FieldErrors errors;
  Outer o = OuterFields().Decode(&in, "metadata", &errors);
  EXPECT_TRUE(errors.empty()) << errors.ToString();
  EXPECT_EQ(o.rest, json({{"deletionTimestamp", nullptr}, {"finalizers", {"a"}}}));
  o.rest["text"] = "stale";
  EXPECT_EQ(OuterFields().Encode(o)["text"], "t");
}

TEST(JsonFields, APredicateOnTheWholeObjectDecidesAWrite) {
  static const JsonFields<Outer> fields =
      JsonFields<Outer>()
          .Add("count", &Outer::count, [](const Outer& o) { return !o.text.empty(); })
          .List("items", &Outer::items, InnerFields(), [](const Outer& o) { return !o.text.empty(); });
  Outer o;
  EXPECT_EQ(fields.Encode(o), json::object());
  // An optional's empty value is never written, whatever the predicate says.
  static const JsonFields<Outer> always =
      JsonFields<Outer>().Add("maybe", &Outer::maybe, [](const Outer&) { return true; });
  EXPECT_EQ(always.Encode(o), json::object());
  o.text = "seen";
  EXPECT_EQ(fields.Encode(o), json({{"count", 0}, {"items", json::array()}}));
}

TEST(JsonFields, AWrongValueOfAnOptionalLeavesItEmpty) {
  const json in = {{"maybe", "7"}, {"tri", 1}, {"inner", {{"value", "1.5"}}}};
  FieldErrors errors;
  const Outer o = OuterFields().Decode(&in, "", &errors);
  EXPECT_FALSE(o.maybe.has_value());
  EXPECT_FALSE(o.tri.has_value());
  EXPECT_FALSE(o.inner.value.has_value());
  EXPECT_EQ(errors.Joined(),
            "maybe: must be an integer, got string \"7\"; tri: must be true or false, got integer 1; "
            "inner.value: must be a number, got string \"1.5\"");
}

}  // namespace
}  // namespace ergobench
