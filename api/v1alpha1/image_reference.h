// Container image references as the kubelet accepts them: the reference grammar of the
// distribution project (github.com/distribution/reference), [domain[:port]/]path[:tag][@digest].
// Anything else would sit in InvalidImageName, or is a shell fragment.
#pragma once

#include <string_view>

namespace ergobench {

bool IsImageReference(std::string_view image);

}  // namespace ergobench
