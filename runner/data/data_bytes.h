// How many bytes of data set files this process's readers have read: the data path's I/O
// figure (IoFigures in api/v1alpha1/result.h, ergobench_data_read_bytes_total). Each reader
// counts what it takes from a file where it takes it (compressed bytes for a gzip file),
// from any thread: the prefetcher's workers read images beside training.
#pragma once

#include <cstdint>
#include <string>

namespace ergobench {

void CountDataBytes(int64_t bytes);
// The size of `path`, counted: for a reader that has read the whole file through a stream.
void CountDataFile(const std::string& path);
// Since the process started.
int64_t DataBytesRead();

}  // namespace ergobench
