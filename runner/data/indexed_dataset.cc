#include "runner/data/indexed_dataset.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "api/v1alpha1/load.h"
#include "runner/data/data_bytes.h"

namespace ergobench {
namespace {

constexpr std::string_view kMagic("TNTIDX\0\0", 8);
constexpr int64_t kHeaderBytes = 8 + 5 * 8;  // the magic, then version, code, size, N and S

// The element types a token id can be stored as: their codes' sizes in bytes (0: not an id type).
int64_t ElementSize(uint64_t code) {
  switch (code) {
    case 1: case 2: return 1;  // uint8, int8
    case 3: return 2;          // int16
    case 4: return 4;          // int32
    case 5: return 8;          // int64
    default: return 0;         // 6 float, 7 double, or no type at all
  }
}

// A little-endian value of `bytes` bytes at `p` (the format's, and every machine's that reads it).
uint64_t LittleEndian(const char* p, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(p[i]);
  return value;
}

uint64_t U64At(std::string_view bytes, int64_t offset) { return LittleEndian(bytes.data() + offset, 8); }

// Element `i` of `bytes` as a signed value.
int64_t ElementAt(const char* bytes, int64_t i, uint64_t code) {
  switch (code) {
    case 1: return static_cast<unsigned char>(bytes[i]);
    case 2: return static_cast<signed char>(bytes[i]);
    case 3: return static_cast<int16_t>(LittleEndian(bytes + 2 * i, 2));
    case 4: return static_cast<int32_t>(LittleEndian(bytes + 4 * i, 4));
    default: return static_cast<int64_t>(LittleEndian(bytes + 8 * i, 8));
  }
}

struct Index {
  uint64_t code = 0;
  int64_t element_size = 0;
  std::vector<int64_t> data_offsets;
};

Status Invalid(const std::string& where, const std::string& what) { return Status::InvalidArgument(where + ": " + what); }

// An int64 array of `count` at `offset`, each not below the one before it (from 0) and, where
// `last` is given, ending at it.
StatusOr<std::vector<int64_t>> Offsets(std::string_view index, int64_t offset, int64_t count, const std::string& name,
                                       const std::string& where) {
  std::vector<int64_t> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    values[static_cast<size_t>(i)] = static_cast<int64_t>(U64At(index, offset + 8 * i));
    if ((i == 0 && values[0] != 0) || (i > 0 && values[static_cast<size_t>(i)] < values[static_cast<size_t>(i - 1)])) {
      return Invalid(where, name + "[" + std::to_string(i) + "] is " + std::to_string(values[static_cast<size_t>(i)]) +
                                (i == 0 ? ", not 0" : ", below the one before it"));
    }
  }
  return values;
}

StatusOr<Index> ParseIndex(std::string_view index, const std::string& where, const IndexedDatasetLimits& limits) {
  if (static_cast<int64_t>(index.size()) < kHeaderBytes || index.substr(0, 8) != kMagic) {
    return Invalid(where, "not a fairseq IndexedDataset index (no TNTIDX header)");
  }
  if (const uint64_t version = U64At(index, 8); version != 1) {
    return Invalid(where, "version " + std::to_string(version) + ", not 1");
  }
  Index parsed;
  parsed.code = U64At(index, 16);
  parsed.element_size = ElementSize(parsed.code);
  if (parsed.element_size == 0) return Invalid(where, "element type " + std::to_string(parsed.code) + " is not an integer type");
  if (U64At(index, 24) != static_cast<uint64_t>(parsed.element_size)) {
    return Invalid(where, "element size " + std::to_string(U64At(index, 24)) + " for type " + std::to_string(parsed.code));
  }
  const uint64_t items = U64At(index, 32), dims = U64At(index, 40);
  if (items > static_cast<uint64_t>(limits.max_items)) {
    return Invalid(where, std::to_string(items) + " items, more than " + std::to_string(limits.max_items));
  }
  // Sentences are 1-D: one size each. The arrays must fill the rest of the file exactly.
  if (dims != items) return Invalid(where, std::to_string(dims) + " sizes for " + std::to_string(items) + " items, not 1-D");
  const auto n = static_cast<int64_t>(items);
  const int64_t expected = kHeaderBytes + 8 * (2 * (n + 1) + n);
  if (static_cast<int64_t>(index.size()) != expected) {
    return Invalid(where, std::to_string(index.size()) + " bytes where " + std::to_string(n) + " items take " +
                              std::to_string(expected));
  }
  ASSIGN_OR_RETURN(const std::vector<int64_t> dim_offsets, Offsets(index, kHeaderBytes, n + 1, "dim_offsets", where));
  ASSIGN_OR_RETURN(parsed.data_offsets, Offsets(index, kHeaderBytes + 8 * (n + 1), n + 1, "data_offsets", where));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t length = parsed.data_offsets[static_cast<size_t>(i + 1)] - parsed.data_offsets[static_cast<size_t>(i)];
    const auto size = static_cast<int64_t>(U64At(index, kHeaderBytes + 16 * (n + 1) + 8 * i));
    if (dim_offsets[static_cast<size_t>(i + 1)] != i + 1 || size != length) {
      return Invalid(where, "item " + std::to_string(i) + " is not a 1-D tensor of its " + std::to_string(length) + " elements");
    }
  }
  if (parsed.data_offsets.back() > limits.max_tokens) {
    return Invalid(where, std::to_string(parsed.data_offsets.back()) + " elements, more than " +
                              std::to_string(limits.max_tokens));
  }
  return parsed;
}

// Appends `count` elements of `bytes` as ids.
Status AppendIds(const char* bytes, int64_t count, const Index& index, int64_t first, const std::string& where,
                 std::vector<int32_t>* tokens) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t id = ElementAt(bytes, i, index.code);
    if (id < 0 || id > std::numeric_limits<int32_t>::max()) {
      return Invalid(where, "element " + std::to_string(first + i) + " is " + std::to_string(id) + ", not a token id");
    }
    tokens->push_back(static_cast<int32_t>(id));
  }
  return Status::Ok();
}

ParallelSide SideOf(const Index& index) {
  ParallelSide side;
  side.offsets = index.data_offsets;
  side.tokens.reserve(static_cast<size_t>(index.data_offsets.back()));
  return side;
}

StatusOr<std::string> ReadAll(const std::string& path) {
  StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return Status::NotFound(path + ": cannot be read");
  CountDataBytes(static_cast<int64_t>(bytes->size()));
  return bytes;
}

}  // namespace

StatusOr<ParallelSide> ParseIndexedDataset(std::string_view index, std::string_view data, const std::string& where,
                                           const IndexedDatasetLimits& limits) {
  ASSIGN_OR_RETURN(const Index parsed, ParseIndex(index, where + ".idx", limits));
  const int64_t elements = parsed.data_offsets.back();
  if (static_cast<int64_t>(data.size()) != elements * parsed.element_size) {
    return Invalid(where + ".bin", std::to_string(data.size()) + " bytes where the index counts " + std::to_string(elements) +
                                       " elements of " + std::to_string(parsed.element_size));
  }
  ParallelSide side = SideOf(parsed);
  RETURN_IF_ERROR(AppendIds(data.data(), elements, parsed, 0, where + ".bin", &side.tokens));
  return side;
}

// The data file is read in chunks: WMT17's training side is half a gigabyte of int32s.
StatusOr<ParallelSide> ReadIndexedDataset(const std::string& prefix, const IndexedDatasetLimits& limits) {
  ASSIGN_OR_RETURN(const std::string index_bytes, ReadAll(prefix + ".idx"));
  ASSIGN_OR_RETURN(const Index parsed, ParseIndex(index_bytes, prefix + ".idx", limits));
  const std::string data_path = prefix + ".bin";
  std::ifstream data(data_path, std::ios::binary);
  std::error_code error;
  const auto bytes = static_cast<int64_t>(std::filesystem::file_size(data_path, error));
  if (!data || error) return Status::NotFound(data_path + ": cannot be read");
  const int64_t elements = parsed.data_offsets.back();
  if (bytes != elements * parsed.element_size) {
    return Invalid(data_path, std::to_string(bytes) + " bytes where the index counts " + std::to_string(elements) +
                                  " elements of " + std::to_string(parsed.element_size));
  }
  ParallelSide side = SideOf(parsed);
  constexpr int64_t kChunk = 1 << 18;  // elements
  std::vector<char> buffer(static_cast<size_t>(kChunk * parsed.element_size));
  for (int64_t first = 0; first < elements; first += kChunk) {
    const int64_t count = std::min(kChunk, elements - first);
    if (!data.read(buffer.data(), count * parsed.element_size)) return Status::Unavailable(data_path + ": read failed");
    CountDataBytes(count * parsed.element_size);
    RETURN_IF_ERROR(AppendIds(buffer.data(), count, parsed, first, data_path, &side.tokens));
  }
  return side;
}

}  // namespace ergobench
