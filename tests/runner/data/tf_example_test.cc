// tf.train.Example against bytes built by hand from example.proto and feature.proto: what
// TensorFlow writes (packed lists), what other writers may (unpacked lists, unknown fields,
// repeated messages) and what no writer should (cut short, lengths past the end, tag 0).
#include "runner/data/tf_example.h"

#include <gtest/gtest.h>

namespace ergobench {
namespace {

std::string ProtoBytes(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// Example{features{feature{"x": bytes_list{"\x01\x00\xff\xff"}}, feature{"y": float_list{1, -2.5}}}}
const std::string kExample = ProtoBytes({
    0x0a, 0x22,                                      // Example.features, 34 bytes
    0x0a, 0x0d,                                      //   Features.feature (an entry), 13 bytes
    0x0a, 0x01, 'x',                                 //     key "x"
    0x12, 0x08, 0x0a, 0x06, 0x0a, 0x04,              //     value: Feature.bytes_list: BytesList.value, 4 bytes
    0x01, 0x00, 0xff, 0xff,                          //       int16 1 and -1, little-endian
    0x0a, 0x11,                                      //   Features.feature, 17 bytes
    0x0a, 0x01, 'y',                                 //     key "y"
    0x12, 0x0c, 0x12, 0x0a, 0x0a, 0x08,              //     value: Feature.float_list: packed, 8 bytes
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0,  //       1.0f, -2.5f
});

TfFeatures Expected() {
  TfFeatures features;
  features["x"] = {TfFeature::Kind::kBytes, {ProtoBytes({0x01, 0x00, 0xff, 0xff})}, {}, {}};
  features["y"] = {TfFeature::Kind::kFloat, {}, {1.0f, -2.5f}, {}};
  return features;
}

TEST(TfExampleTest, EncodesAsTensorFlowDoesAndDecodesIt) {
  EXPECT_EQ(EncodeTfExample(Expected()), kExample);
  auto decoded = DecodeTfExample(kExample);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, Expected());
}

TEST(TfExampleTest, Int64ListsPackedAndNot) {
  // Int64List{1, 300, -1}: packed varints (-1 is ten bytes), then the same three unpacked.
  const std::string packed = ProtoBytes({0x0a, 0x18, 0x0a, 0x16, 0x0a, 0x01, 'n', 0x12, 0x11, 0x1a, 0x0f, 0x0a, 0x0d,
                                    0x01, 0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  auto decoded = DecodeTfExample(packed);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->at("n").ints, (std::vector<int64_t>{1, 300, -1}));
  EXPECT_EQ(EncodeTfExample(*decoded), packed);
  const std::string unpacked = ProtoBytes({0x0a, 0x19, 0x0a, 0x17, 0x0a, 0x01, 'n', 0x12, 0x12, 0x1a, 0x10, 0x08, 0x01,
                                      0x08, 0xac, 0x02, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  decoded = DecodeTfExample(unpacked);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->at("n").ints, (std::vector<int64_t>{1, 300, -1}));
}

TEST(TfExampleTest, UnpackedFloatsUnknownFieldsAndProtobufsMergeRules) {
  const std::string bytes = ProtoBytes({
      0x10, 0x05,                    // Example field 2 (unknown), varint 5
      0x0a, 0x1a,                    // Example.features, 26 bytes
      0x0a, 0x18,                    //   an entry, 24 bytes
      0x0a, 0x01, 'y',               //     key "y"
      0x12, 0x13,                    //     value, 19 bytes
      0x0a, 0x03, 0x0a, 0x01, 'z',   //       bytes_list{"z"}: replaced by the later case
      0x20, 0x07,                    //       Feature field 4 (unknown), varint 7
      0x12, 0x0a,                    //       float_list, 10 bytes, unpacked:
      0x0d, 0x00, 0x00, 0x80, 0x3f,  //         1.0f
      0x0d, 0x00, 0x00, 0x20, 0xc0,  //         -2.5f
      0x0a, 0x0b,                    // Example.features again: merged
      0x0a, 0x09, 0x0a, 0x01, 'y',   //   an entry for "y" again: the later wins
      0x12, 0x04, 0x0a, 0x02,        //     value: bytes_list, 2 bytes:
      0x0a, 0x00,                    //       the value ""
  });
  auto decoded = DecodeTfExample(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ(decoded->at("y"), (TfFeature{TfFeature::Kind::kBytes, {""}, {}, {}}));
  decoded = DecodeTfExample(bytes.substr(0, 2 + 2 + 26));  // without the second features
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->at("y"), (TfFeature{TfFeature::Kind::kFloat, {}, {1.0f, -2.5f}, {}}));
}

TEST(TfExampleTest, MalformedBytesAreErrorsNamingWhere) {
  const auto error = [](const std::string& bytes) { return DecodeTfExample(bytes).status().message(); };
  EXPECT_EQ(error(kExample.substr(0, kExample.size() - 1)), "tf.train.Example: Example.features: longer than the record");
  std::string cut = kExample;
  cut[1] = 0x21;  // the features one byte shorter: the last float cut
  EXPECT_EQ(error(cut), "tf.train.Example: features.feature[1]: longer than the features");
  std::string odd = kExample;
  odd[27] = 0x07;  // 7 bytes of packed floats
  EXPECT_NE(error(odd).find("features.feature[1].value.float_list: packed values not 4 bytes each"), std::string::npos)
      << error(odd);
  EXPECT_EQ(error(ProtoBytes({0x00})), "tf.train.Example: Example: a malformed field tag");
  EXPECT_EQ(error(ProtoBytes({0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})), "tf.train.Example: Example.features: longer than the record");
  EXPECT_EQ(error(ProtoBytes({0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})),
            "tf.train.Example: Example: a malformed unknown field");
  std::string groups(2000, '\x0b');  // field 1, start group, nested 2,000 deep: protobuf's depth limit
  EXPECT_EQ(error(groups), "tf.train.Example: Example: a malformed unknown field");
  EXPECT_TRUE(DecodeTfExample("").ok());  // an Example without features is an empty one
}

}  // namespace
}  // namespace ergobench
