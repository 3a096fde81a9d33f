// fairseq's (TorchNet's) IndexedDataset, the binary format MLBench's WMT17 archive of task 4b
// stores each side of each split in (mlbench-core's wmt17 preprocess/indexed_dataset.py):
//   <prefix>.idx: "TNTIDX\0\0", then little-endian u64s: version 1, the element type's code
//     (1 uint8, 2 int8, 3 int16, 4 int32, 5 int64) and size in bytes, the item count N and the
//     count S of dimension sizes; then int64 arrays: dim_offsets[N + 1], data_offsets[N + 1]
//     (in elements) and sizes[S];
//   <prefix>.bin: the items' elements, one after another.
// Each item here is a sentence: a 1-D tensor of token ids. Everything is checked before it is
// trusted: the header, that each array fits the file exactly, that offsets start at 0 and never
// decrease, that each item is 1-D of the size its offsets say, and that the data file holds
// exactly the elements the index counts. Nothing here depends on torch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "runner/data/parallel_corpus.h"

namespace ergobench {

struct IndexedDatasetLimits {
  int64_t max_items = int64_t{1} << 28;   // sentences: WMT17 has 4.5M pairs
  int64_t max_tokens = int64_t{1} << 31;  // elements in all
};

// The items of an index and data read into memory, their ids as stored (they must fit int32,
// and not be negative); InvalidArgument naming `where` and what is wrong.
StatusOr<ParallelSide> ParseIndexedDataset(std::string_view index, std::string_view data, const std::string& where,
                                           const IndexedDatasetLimits& limits = {});

// <prefix>.idx and <prefix>.bin; a missing or unreadable file is named.
StatusOr<ParallelSide> ReadIndexedDataset(const std::string& prefix, const IndexedDatasetLimits& limits = {});

}  // namespace ergobench
