#include "api/contract/progress_event.h"

#include <nlohmann/json.hpp>

#include "base/json_fields.h"
#include "base/json_reader.h"

namespace ergobench {

namespace {

const JsonFields<ProgressEvent>& EventFields() {
  using E = ProgressEvent;
  static const JsonFields<E> fields = JsonFields<E>()
                                          .Add("rank", &E::rank, Written::kAlways)
                                          .Add("stage", &E::stage, Written::kAlways)
                                          .Add("done", &E::done, Written::kAlways)
                                          .Add("total", &E::total, Written::kAlways)
                                          .Add("elapsed", &E::elapsed_seconds, Written::kAlways)
                                          .Add("epoch", &E::epoch)
                                          .Add("loss", &E::loss)
                                          .Add("metric", &E::metric)
                                          .Add("value", &E::value)
                                          .Add("note", &E::note)
                                          .Add("fraction", &E::done_fraction)
                                          .Add("secondsLeft", &E::seconds_left)
                                          .Add("estimatedFrom", &E::estimated_from);
  return fields;
}

}  // namespace

std::string EncodeProgressEvent(const ProgressEvent& e) {
  return EventFields().Encode(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<ProgressEvent> ParseProgressEvent(const std::string& line) {
  nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded()) return Status::InvalidArgument("progress line is not JSON");
  FieldErrors errors;
  ProgressEvent e = EventFields().Decode(&json, "", &errors);
  RETURN_IF_ERROR(errors.ToStatus());
  return e;
}

}  // namespace ergobench
