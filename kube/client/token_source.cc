#include "kube/client/token_source.h"

#include <sys/stat.h>

#include "api/v1alpha1/load.h"

namespace ergobench::kube {

StatusOr<std::string> TokenSource::Token() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (token_file_.empty()) return token_;
  struct stat st {};
  if (stat(token_file_.c_str(), &st) != 0) {
    // Keep serving the last token: a rotation replaces the file through a symlink swap.
    if (!token_.empty()) return token_;
    return Status::Unauthenticated("cannot read the token file " + token_file_);
  }
  if (st.st_mtim.tv_sec != file_mtime_.tv_sec || st.st_mtim.tv_nsec != file_mtime_.tv_nsec ||
      st.st_size != file_size_) {
    ASSIGN_OR_RETURN(std::string text, ReadFile(token_file_));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
    token_ = std::move(text);
    file_mtime_ = st.st_mtim;
    file_size_ = st.st_size;
  }
  return token_;
}

}  // namespace ergobench::kube
