// tensor2tensor's subword text encoding, in which MLBench's WMT17 archive of task 4b is
// tokenized (mlbench-core's wmt17 preprocess/sub_tokenizer.py, from tensor2tensor): text is cut
// into runs of letters and numbers and runs of anything else, the single spaces between two
// runs of letters dropped; each run escaped ("_" as "\u", "\" as "\\", a character outside the
// alphabet as "\<code point>;") and ended with "_"; the result split into subtokens of the
// vocabulary. Decoding undoes that; Unicode's character categories come from ICU. Nothing here
// depends on torch.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace ergobench {

// Whether this build can decode subtokens: it needs ICU (libicu-dev) for Unicode's letter and
// number categories. FailedPrecondition naming what is missing where not.
Status CheckSubtokensSupported();

// The text of subtokens written one after another ("Hel" "lo_" ",_" "world_"): split at each
// "_", each part unescaped ("\u" is "_", "\\" is "\", "\123;" is U+007B, a code point that is
// not a character U+3013, as tensor2tensor's), the parts joined with a space where both start
// with a letter or a number (Unicode's categories L and N): "Hello, world".
std::string DecodeSubtokens(std::string_view subtokens);

}  // namespace ergobench
