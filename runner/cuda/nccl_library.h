// NCCL, loaded at run time with dlopen, so that one runner binary serves machines with and
// without it: the entry points the NCCL communicator calls, typed by NCCL's own nccl.h (so a
// mismatch with the toolkit's declarations is a compile error). Which file: `path` if given,
// else $ERGOBENCH_NCCL_LIBRARY, else libnccl.so.2 as the dynamic loader finds it.
#pragma once

#include <nccl.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace ergobench {

class NcclLibrary {
 public:
  // FailedPrecondition naming the file and dlerror() when it does not load or lacks an entry point.
  static StatusOr<std::shared_ptr<NcclLibrary>> Load(const std::string& path = "");
  ~NcclLibrary();
  NcclLibrary(const NcclLibrary&) = delete;
  NcclLibrary& operator=(const NcclLibrary&) = delete;

  const std::string& path() const { return path_; }
  // "2.28.9", from ncclGetVersion.
  const std::string& version() const { return version_; }

  decltype(&::ncclGetVersion) GetVersion = nullptr;
  decltype(&::ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&::ncclCommInitRank) CommInitRank = nullptr;
  decltype(&::ncclCommDestroy) CommDestroy = nullptr;
  decltype(&::ncclCommAbort) CommAbort = nullptr;
  decltype(&::ncclCommGetAsyncError) CommGetAsyncError = nullptr;
  decltype(&::ncclGetErrorString) GetErrorString = nullptr;
  decltype(&::ncclGetLastError) GetLastError = nullptr;
  decltype(&::ncclAllReduce) AllReduce = nullptr;
  decltype(&::ncclReduceScatter) ReduceScatter = nullptr;
  decltype(&::ncclAllGather) AllGather = nullptr;
  decltype(&::ncclBroadcast) Broadcast = nullptr;
  decltype(&::ncclReduce) Reduce = nullptr;
  decltype(&::ncclSend) Send = nullptr;
  decltype(&::ncclRecv) Recv = nullptr;
  decltype(&::ncclGroupStart) GroupStart = nullptr;
  decltype(&::ncclGroupEnd) GroupEnd = nullptr;

  // "ncclAllReduce: unhandled system error (...last error...)".
  std::string Error(const char* call, ncclResult_t result, ncclComm_t comm = nullptr) const;

 private:
  NcclLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  Status Resolve();

  void* handle_;
  std::string path_;
  std::string version_;
};

// NCCL's version code (NCCL_VERSION_CODE's encoding: 22809 or, before 2.9, 2708) as "2.28.9".
std::string NcclVersionString(int code);

}  // namespace ergobench
