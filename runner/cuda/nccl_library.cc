#include "runner/cuda/nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ergobench {

std::string NcclVersionString(int code) {
  // From 2.9 on, major * 10000 + minor * 100 + patch; before, major * 1000 + minor * 100 + patch.
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code % 10000 / 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

StatusOr<std::shared_ptr<NcclLibrary>> NcclLibrary::Load(const std::string& path) {
  std::string file = path;
  if (file.empty()) {
    const char* configured = std::getenv("ERGOBENCH_NCCL_LIBRARY");
    file = configured != nullptr && *configured != '\0' ? configured : "libnccl.so.2";
  }
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Status::FailedPrecondition("backend nccl: cannot load NCCL from " + file + ": " + (why ? why : "?") +
                                      " (install NCCL, or set ERGOBENCH_NCCL_LIBRARY to its libnccl.so.2)");
  }
  std::shared_ptr<NcclLibrary> library(new NcclLibrary(handle, file));
  RETURN_IF_ERROR(library->Resolve());
  int code = 0;
  if (ncclResult_t r = library->GetVersion(&code); r != ncclSuccess) {
    return Status::FailedPrecondition("backend nccl: " + library->Error("ncclGetVersion", r));
  }
  library->version_ = NcclVersionString(code);
  return library;
}

NcclLibrary::~NcclLibrary() { dlclose(handle_); }

Status NcclLibrary::Resolve() {
  Status status = Status::Ok();
  const auto bind = [&](auto& slot, const char* name) {
    void* symbol = dlsym(handle_, name);
    if (symbol == nullptr && status.ok()) {
      status = Status::FailedPrecondition("backend nccl: " + path_ + " has no " + name + " (NCCL 2.13 or newer is needed)");
    }
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
  };
  bind(GetVersion, "ncclGetVersion");
  bind(GetUniqueId, "ncclGetUniqueId");
  bind(CommInitRank, "ncclCommInitRank");
  bind(CommDestroy, "ncclCommDestroy");
  bind(CommAbort, "ncclCommAbort");
  bind(CommGetAsyncError, "ncclCommGetAsyncError");
  bind(GetErrorString, "ncclGetErrorString");
  bind(GetLastError, "ncclGetLastError");
  bind(AllReduce, "ncclAllReduce");
  bind(ReduceScatter, "ncclReduceScatter");
  bind(AllGather, "ncclAllGather");
  bind(Broadcast, "ncclBroadcast");
  bind(Reduce, "ncclReduce");
  bind(Send, "ncclSend");
  bind(Recv, "ncclRecv");
  bind(GroupStart, "ncclGroupStart");
  bind(GroupEnd, "ncclGroupEnd");
  return status;
}

std::string NcclLibrary::Error(const char* call, ncclResult_t result, ncclComm_t comm) const {
  std::string text = std::string(call) + ": " + (GetErrorString ? GetErrorString(result) : std::to_string(result));
  const char* last = GetLastError ? GetLastError(comm) : nullptr;
  if (last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  return text;
}

}  // namespace ergobench
