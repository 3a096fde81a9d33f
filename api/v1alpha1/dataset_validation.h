// Validation of a Dataset as written: one source (a url with its sha256, or an existing
// claim), storage a url needs, names that leave room for the children's. Every problem is
// reported with its field path.
#pragma once

#include "api/v1alpha1/dataset.h"
#include "base/field_errors.h"

namespace ergobench {

FieldErrors ValidateDataset(const Dataset& dataset);

}  // namespace ergobench
