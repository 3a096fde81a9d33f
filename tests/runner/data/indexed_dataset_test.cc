#include "runner/data/indexed_dataset.h"

#include <fstream>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace ergobench {
namespace {

using ::testing::ElementsAre;

void Put(std::string* out, uint64_t value, int bytes = 8) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// An index and data as fairseq's IndexedDatasetBuilder writes them (mlbench-core's copy of it).
struct Dataset {
  std::string index, data;
};
Dataset Build(const std::vector<std::vector<int64_t>>& items, uint64_t code = 4, int element_size = 4) {
  Dataset d;
  d.index = std::string("TNTIDX\0\0", 8);
  for (const uint64_t v : {uint64_t{1}, code, static_cast<uint64_t>(element_size), items.size(), items.size()}) Put(&d.index, v);
  int64_t offset = 0;
  std::vector<int64_t> data_offsets = {0};
  for (const auto& item : items) data_offsets.push_back(offset += static_cast<int64_t>(item.size()));
  for (size_t i = 0; i <= items.size(); ++i) Put(&d.index, i);
  for (const int64_t o : data_offsets) Put(&d.index, static_cast<uint64_t>(o));
  for (const auto& item : items) Put(&d.index, item.size());
  for (const auto& item : items) {
    for (const int64_t id : item) Put(&d.data, static_cast<uint64_t>(id), element_size);
  }
  return d;
}

std::string Error(const Dataset& d, const IndexedDatasetLimits& limits = {}) {
  const StatusOr<ParallelSide> side = ParseIndexedDataset(d.index, d.data, "test.en-de.en", limits);
  return side.ok() ? "parsed" : side.status().message();
}

TEST(IndexedDatasetTest, ReadsEveryIntegerTypeItsBuilderWrites) {
  for (const auto& [code, size] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{3, 2}, std::pair{4, 4}, std::pair{5, 8}}) {
    const Dataset d = Build({{3, 4, 100, 2}, {}, {127, 2}}, code, size);
    const StatusOr<ParallelSide> side = ParseIndexedDataset(d.index, d.data, "test");
    ASSERT_TRUE(side.ok()) << code << ": " << side.status().ToString();
    EXPECT_THAT(side->tokens, ElementsAre(3, 4, 100, 2, 127, 2)) << code;
    EXPECT_THAT(side->offsets, ElementsAre(0, 4, 4, 6)) << code;
  }
  // Past int16's range, and uint8's top values.
  EXPECT_THAT(ParseIndexedDataset(Build({{33711, 2}}).index, Build({{33711, 2}}).data, "t")->tokens, ElementsAre(33711, 2));
  EXPECT_THAT(ParseIndexedDataset(Build({{255}}, 1, 1).index, Build({{255}}, 1, 1).data, "t")->tokens, ElementsAre(255));
}

TEST(IndexedDatasetTest, ReadsItsFilesInChunksAsFromMemory) {
  TempDir dir;
  std::vector<std::vector<int64_t>> items;
  for (int64_t i = 0; i < 40000; ++i) items.push_back({3 + i % 1000, 4 + i % 7, 5, 6, 7, 8, 9, 2});  // 320,000 ids: two chunks
  const Dataset d = Build(items);
  const std::string prefix = (dir.path() / "train.en-de.en").string();
  std::ofstream(prefix + ".idx", std::ios::binary) << d.index;
  std::ofstream(prefix + ".bin", std::ios::binary) << d.data;
  const StatusOr<ParallelSide> side = ReadIndexedDataset(prefix);
  ASSERT_TRUE(side.ok()) << side.status().ToString();
  EXPECT_EQ(40000, side->size());
  EXPECT_EQ(side->tokens, ParseIndexedDataset(d.index, d.data, "t")->tokens);
  EXPECT_EQ(std::vector<int32_t>({3 + 39999 % 1000, 4 + 39999 % 7, 5, 6, 7, 8, 9, 2}), side->Sentence(39999));
  std::ofstream(prefix + ".bin", std::ios::binary) << d.data.substr(1);
  EXPECT_EQ(prefix + ".bin: 1279999 bytes where the index counts 320000 elements of 4", ReadIndexedDataset(prefix).status().message());
  EXPECT_EQ(prefix + "x.idx: cannot be read", ReadIndexedDataset(prefix + "x").status().message());
}

TEST(IndexedDatasetTest, HostileIndexesNameWhatIsWrong) {
  const Dataset good = Build({{3, 2}, {4, 5, 2}});
  const auto with = [&](size_t at, uint64_t value) {
    Dataset d = good;
    std::string bytes;
    Put(&bytes, value);
    d.index.replace(at, 8, bytes);
    return d;
  };
  EXPECT_EQ("parsed", Error(good));
  EXPECT_EQ("test.en-de.en.idx: not a fairseq IndexedDataset index (no TNTIDX header)", Error({"MMIDIDX\0", ""}));
  EXPECT_EQ("test.en-de.en.idx: not a fairseq IndexedDataset index (no TNTIDX header)", Error({good.index.substr(0, 40), ""}));
  EXPECT_EQ("test.en-de.en.idx: version 2, not 1", Error(with(8, 2)));
  EXPECT_EQ("test.en-de.en.idx: element type 6 is not an integer type", Error(with(16, 6)));
  EXPECT_EQ("test.en-de.en.idx: element size 8 for type 4", Error(with(24, 8)));
  EXPECT_EQ("test.en-de.en.idx: 3 sizes for 2 items, not 1-D", Error(with(40, 3)));
  EXPECT_EQ("test.en-de.en.idx: 18446744073709551615 items, more than 268435456", Error(with(32, ~uint64_t{0})));
  EXPECT_EQ("test.en-de.en.idx: 3 items, more than 2", Error(with(32, 3), {2, 100}));
  EXPECT_EQ("test.en-de.en.idx: 120 bytes where 2 items take 112", Error({good.index + std::string(8, '\0'), good.data}));
  EXPECT_EQ("test.en-de.en.idx: dim_offsets[0] is 5, not 0", Error(with(48, 5)));
  EXPECT_EQ("test.en-de.en.idx: data_offsets[2] is 1, below the one before it", Error(with(88, 1)));
  EXPECT_EQ("test.en-de.en.idx: item 1 is not a 1-D tensor of its 3 elements", Error(with(104, 4)));
  EXPECT_EQ("test.en-de.en.idx: 5 elements, more than 4", Error(good, {100, 4}));
  EXPECT_EQ("test.en-de.en.bin: 19 bytes where the index counts 5 elements of 4", Error({good.index, good.data.substr(1)}));
  const Dataset negative = Build({{3, -1}}, 2, 1);
  EXPECT_EQ("test.en-de.en.bin: element 1 is -1, not a token id", Error(negative));
  const Dataset huge = Build({{int64_t{1} << 40}}, 5, 8);
  EXPECT_EQ("test.en-de.en.bin: element 0 is 1099511627776, not a token id", Error(huge));
}

}  // namespace
}  // namespace ergobench
