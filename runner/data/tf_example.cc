#include "runner/data/tf_example.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstring>
#include <limits>

namespace ergobench {
namespace {

namespace pb = google::protobuf;
using Input = pb::io::CodedInputStream;
using Output = pb::io::CodedOutputStream;
using Wire = pb::internal::WireFormatLite;

constexpr auto kLengthDelimited = Wire::WIRETYPE_LENGTH_DELIMITED;

Status Malformed(const std::string& where, const std::string& what) {
  return Status::InvalidArgument("tf.train.Example: " + where + ": " + what);
}

// A length-delimited field's contents: the stream limited to them until it goes out of scope.
class Nested {
 public:
  explicit Nested(Input* in) : in_(in) {
    uint32_t length = 0;
    ok_ = in->ReadVarint32(&length) && static_cast<int64_t>(length) <= in->BytesUntilLimit();
    if (ok_) limit_ = in->PushLimit(static_cast<int>(length));
  }
  ~Nested() {
    if (ok_) in_->PopLimit(limit_);
  }
  bool ok() const { return ok_; }

 private:
  Input* in_;
  bool ok_ = false;
  Input::Limit limit_{};
};

// Calls field(number, wire type, tag) for each field up to the stream's limit. `field` returns an
// error for a malformed field; a malformed tag is one too.
template <typename Field>
Status ForEachField(Input* in, const std::string& where, Field&& field) {
  for (;;) {
    const uint32_t tag = in->ReadTag();
    if (tag == 0) return in->ConsumedEntireMessage() ? Status::Ok() : Malformed(where, "a malformed field tag");
    RETURN_IF_ERROR(field(Wire::GetTagFieldNumber(tag), Wire::GetTagWireType(tag), tag));
  }
}

Status Skip(Input* in, uint32_t tag, const std::string& where) {
  return Wire::SkipField(in, tag) ? Status::Ok() : Malformed(where, "a malformed unknown field");
}

// A length-delimited field's bytes into `out`; false when they run past the stream's limit.
bool ReadBytes(Input* in, std::string* out) {
  uint32_t length = 0;
  return in->ReadVarint32(&length) && static_cast<int64_t>(length) <= in->BytesUntilLimit() &&
         in->ReadString(out, static_cast<int>(length));
}

Status ReadBytesList(Input* in, const std::string& where, std::vector<std::string>* out) {
  return ForEachField(in, where, [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number != 1 || wire != kLengthDelimited) return Skip(in, tag, where);
    return ReadBytes(in, &out->emplace_back()) ? Status::Ok() : Malformed(where, "a value longer than its list");
  });
}

Status ReadFloatList(Input* in, const std::string& where, std::vector<float>* out) {
  const auto read_one = [&]() -> Status {
    uint32_t bits = 0;
    if (!in->ReadLittleEndian32(&bits)) return Malformed(where, "a value cut short");
    float value;
    std::memcpy(&value, &bits, sizeof value);
    out->push_back(value);
    return Status::Ok();
  };
  return ForEachField(in, where, [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number == 1 && wire == Wire::WIRETYPE_FIXED32) return read_one();
    if (number != 1 || wire != kLengthDelimited) return Skip(in, tag, where);
    Nested packed(in);
    if (!packed.ok() || in->BytesUntilLimit() % 4 != 0) return Malformed(where, "packed values not 4 bytes each");
    out->reserve(out->size() + static_cast<size_t>(in->BytesUntilLimit() / 4));
    while (in->BytesUntilLimit() > 0) RETURN_IF_ERROR(read_one());
    return Status::Ok();
  });
}

Status ReadInt64List(Input* in, const std::string& where, std::vector<int64_t>* out) {
  const auto read_one = [&]() -> Status {
    uint64_t value = 0;
    if (!in->ReadVarint64(&value)) return Malformed(where, "a malformed varint");
    out->push_back(static_cast<int64_t>(value));
    return Status::Ok();
  };
  return ForEachField(in, where, [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number == 1 && wire == Wire::WIRETYPE_VARINT) return read_one();
    if (number != 1 || wire != kLengthDelimited) return Skip(in, tag, where);
    Nested packed(in);
    if (!packed.ok()) return Malformed(where, "packed values longer than their list");
    while (in->BytesUntilLimit() > 0) RETURN_IF_ERROR(read_one());
    return Status::Ok();
  });
}

// One of the oneof's cases: a later case replaces an earlier one; the same case merges.
Status ReadFeature(Input* in, const std::string& where, TfFeature* feature) {
  return ForEachField(in, where, [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number < 1 || number > 3 || wire != kLengthDelimited) return Skip(in, tag, where);
    const auto kind = static_cast<TfFeature::Kind>(number);  // kBytes 1, kFloat 2, kInt64 3
    if (feature->kind != kind) *feature = TfFeature{kind, {}, {}, {}};
    static const char* const kLists[] = {"", ".bytes_list", ".float_list", ".int64_list"};
    const std::string list = where + kLists[number];
    Nested nested(in);
    if (!nested.ok()) return Malformed(list, "longer than its feature");
    if (kind == TfFeature::Kind::kBytes) return ReadBytesList(in, list, &feature->bytes);
    if (kind == TfFeature::Kind::kFloat) return ReadFloatList(in, list, &feature->floats);
    return ReadInt64List(in, list, &feature->ints);
  });
}

Status ReadEntry(Input* in, const std::string& where, std::string* key, TfFeature* value) {
  return ForEachField(in, where, [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if ((number != 1 && number != 2) || wire != kLengthDelimited) return Skip(in, tag, where);
    if (number == 1) return ReadBytes(in, key) ? Status::Ok() : Malformed(where, "a key longer than its entry");
    Nested nested(in);
    if (!nested.ok()) return Malformed(where, "a value longer than its entry");
    return ReadFeature(in, where + ".value", value);
  });
}

Status ReadFeatures(Input* in, TfFeatures* features) {
  int entries = 0;
  return ForEachField(in, "features", [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number != 1 || wire != kLengthDelimited) return Skip(in, tag, "features");
    const std::string where = "features.feature[" + std::to_string(entries++) + "]";
    Nested nested(in);
    if (!nested.ok()) return Malformed(where, "longer than the features");
    std::string key;
    TfFeature value;
    RETURN_IF_ERROR(ReadEntry(in, where, &key, &value));
    (*features)[key] = std::move(value);  // a map's later entry wins
    return Status::Ok();
  });
}

// A length-delimited field `number` holding `contents`.
void PutMessage(int number, const std::string& contents, Output* out) {
  out->WriteTag(Wire::MakeTag(number, kLengthDelimited));
  out->WriteVarint32(static_cast<uint32_t>(contents.size()));
  out->WriteString(contents);
}

template <typename Write>
std::string Encoded(Write&& write) {
  std::string bytes;
  {
    pb::io::StringOutputStream stream(&bytes);
    Output out(&stream);
    write(&out);
  }
  return bytes;
}

std::string EncodeFeature(const TfFeature& feature) {
  const std::string list = Encoded([&](Output* out) {
    switch (feature.kind) {
      case TfFeature::Kind::kBytes:
        for (const std::string& value : feature.bytes) PutMessage(1, value, out);
        break;
      case TfFeature::Kind::kFloat:
        if (feature.floats.empty()) break;
        out->WriteTag(Wire::MakeTag(1, kLengthDelimited));
        out->WriteVarint32(static_cast<uint32_t>(feature.floats.size() * 4));
        for (const float value : feature.floats) out->WriteLittleEndian32(Wire::EncodeFloat(value));
        break;
      case TfFeature::Kind::kInt64: {
        if (feature.ints.empty()) break;
        const std::string packed = Encoded([&](Output* values) {
          for (const int64_t value : feature.ints) values->WriteVarint64(static_cast<uint64_t>(value));
        });
        PutMessage(1, packed, out);
        break;
      }
      case TfFeature::Kind::kNone:
        break;
    }
  });
  if (feature.kind == TfFeature::Kind::kNone) return "";
  return Encoded([&](Output* out) { PutMessage(static_cast<int>(feature.kind), list, out); });
}

}  // namespace

StatusOr<TfFeatures> DecodeTfExample(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Malformed("Example", std::to_string(bytes.size()) + " bytes, over protobuf's 2 GiB");
  }
  Input in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  const Input::Limit whole = in.PushLimit(static_cast<int>(bytes.size()));  // every length checked against it
  TfFeatures features;
  RETURN_IF_ERROR(ForEachField(&in, "Example", [&](int number, Wire::WireType wire, uint32_t tag) -> Status {
    if (number != 1 || wire != kLengthDelimited) return Skip(&in, tag, "Example");
    Nested nested(&in);
    if (!nested.ok()) return Malformed("Example.features", "longer than the record");
    return ReadFeatures(&in, &features);  // a repeated message merges
  }));
  in.PopLimit(whole);
  return features;
}

std::string EncodeTfExample(const TfFeatures& features) {
  const std::string entries = Encoded([&](Output* out) {
    for (const auto& [key, feature] : features) {
      const std::string entry = Encoded([&](Output* fields) {
        PutMessage(1, key, fields);
        PutMessage(2, EncodeFeature(feature), fields);
      });
      PutMessage(1, entry, out);
    }
  });
  return Encoded([&](Output* out) { PutMessage(1, entries, out); });
}

}  // namespace ergobench
