#include "api/v1alpha1/dataset_validation.h"

#include "api/v1alpha1/field_checks.h"
#include "api/v1alpha1/quantity.h"
#include "api/v1alpha1/validation.h"
#include "base/text_scan.h"

namespace ergobench {
namespace {

void ValidateUrlSource(const DatasetSource& source, FieldErrors* errors) {
  // file:// would read the staging node's own files: never on a cluster.
  CheckFetchUrl("spec.source.url", source.url, /*allow_file=*/false, errors);
  if (!AllOf(source.sha256, IsLowerHexDigit, 64)) {
    errors->Add("spec.source.sha256", "must be 64 lowercase hex digits (the archive's SHA-256), got " +
                                          Quote(source.sha256));
  }
}

void ValidateStorage(const DatasetStorage& storage, FieldErrors* errors) {
  if (storage.size.empty()) {
    errors->Add("spec.storage.size", "is required with a url source: room for the archive and what it extracts to");
  } else if (auto bytes = ParseQuantity(storage.size); !bytes.ok() || *bytes <= 0) {
    errors->Add("spec.storage.size", "must be a positive quantity such as \"2Gi\", got " + Quote(storage.size));
  }
  for (size_t i = 0; i < storage.access_modes.size(); ++i) {
    CheckEnum(IndexPath("spec.storage.accessModes", i), storage.access_modes[i],
              {"ReadWriteOnce", "ReadWriteMany", "ReadOnlyMany", "ReadWriteOncePod"}, errors);
  }
}

}  // namespace

FieldErrors ValidateDataset(const Dataset& d) {
  FieldErrors errors;
  if (d.api_version != kApiVersion) {
    errors.Add("apiVersion", std::string("must be ") + kApiVersion + ", got " + Quote(d.api_version));
  }
  if (d.kind != kDatasetKind) errors.Add("kind", std::string("must be ") + kDatasetKind + ", got " + Quote(d.kind));
  CheckDnsLabel("metadata.name", d.metadata.name, kMaxDatasetNameLength, &errors);

  const DatasetSource& source = d.spec.source;
  const bool url = !source.url.empty() || !source.sha256.empty();
  const bool claim = !source.claim_name.empty() || !source.claim_path.empty();
  if (url == claim) {
    errors.Add("spec.source", url ? "must be a url or a persistentVolumeClaim, not both"
                                  : "is required: a url (with sha256) or a persistentVolumeClaim");
  } else if (url) {
    ValidateUrlSource(source, &errors);
    ValidateStorage(d.spec.storage, &errors);
  } else {
    CheckDnsLabel("spec.source.persistentVolumeClaim.claimName", source.claim_name, 253, &errors);
    CheckRelativePath("spec.source.persistentVolumeClaim.path", source.claim_path, &errors);
    if (!d.spec.storage.size.empty() || !d.spec.storage.storage_class_name.empty() ||
        !d.spec.storage.access_modes.empty()) {
      errors.Add("spec.storage", "has no effect with an existing persistentVolumeClaim; leave it out");
    }
  }
  return errors;
}

}  // namespace ergobench
