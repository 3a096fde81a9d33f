#include "api/contract/progress_event.h"

#include <nlohmann/json.hpp>

#include "base/json_reader.h"

namespace ergobench {

std::string EncodeProgressEvent(const ProgressEvent& e) {
  nlohmann::json out = {{"rank", e.rank}, {"stage", e.stage}, {"done", e.done},
                        {"total", e.total}, {"elapsed", e.elapsed_seconds}};
  if (e.epoch) out["epoch"] = *e.epoch;
  if (e.loss) out["loss"] = *e.loss;
  if (!e.metric.empty()) out["metric"] = e.metric;
  if (e.value) out["value"] = *e.value;
  if (!e.note.empty()) out["note"] = e.note;
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<ProgressEvent> ParseProgressEvent(const std::string& line) {
  nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded()) return Status::InvalidArgument("progress line is not JSON");
  ProgressEvent e;
  FieldErrors errors;
  {
    ObjectReader r(&json, "", &errors);
    r.Int("rank", &e.rank);
    r.String("stage", &e.stage);
    r.Int("done", &e.done);
    r.Int("total", &e.total);
    r.Number("elapsed", &e.elapsed_seconds);
    r.Int("epoch", &e.epoch);
    r.Number("loss", &e.loss);
    r.String("metric", &e.metric);
    r.Number("value", &e.value);
    r.String("note", &e.note);
  }
  RETURN_IF_ERROR(errors.ToStatus());
  return e;
}

}  // namespace ergobench
