#include "api/v1alpha1/result.h"

#include "api/v1alpha1/object_codec.h"
#include "base/json_reader.h"
#include "base/utf8.h"

namespace ergobench {
namespace {

nlohmann::json EncodeAllreduce(const AllreduceSummary& a) {
  return {{"sizes", a.sizes},
          {"repetitions", a.repetitions},
          {"dtype", a.dtype},
          {"peakBusBandwidthBytesPerSecond", a.peak_bus_bandwidth_bytes_per_second},
          {"peakBusBandwidthBytes", a.peak_bus_bandwidth_bytes},
          {"minLatencySeconds", a.min_latency_seconds}};
}

AllreduceSummary DecodeAllreduce(const nlohmann::json* json, const std::string& path,
                                 FieldErrors* errors) {
  AllreduceSummary a;
  ObjectReader r(json, path, errors);
  r.Int("sizes", &a.sizes);
  r.Int("repetitions", &a.repetitions);
  r.String("dtype", &a.dtype);
  r.Number("peakBusBandwidthBytesPerSecond", &a.peak_bus_bandwidth_bytes_per_second);
  r.Int("peakBusBandwidthBytes", &a.peak_bus_bandwidth_bytes);
  r.Number("minLatencySeconds", &a.min_latency_seconds);
  return a;
}

nlohmann::json EncodeLanguageModel(const LanguageModelSummary& m) {
  nlohmann::json out = {{"model", m.model},
                        {"parameters", m.parameters},
                        {"sequenceLength", m.sequence_length},
                        {"globalBatchSize", m.global_batch_size},
                        {"precision", m.precision},
                        {"tokens", m.tokens},
                        {"tokensPerSecond", m.tokens_per_second},
                        {"secondsPerIteration", m.seconds_per_iteration},
                        {"flopsPerToken", m.flops_per_token},
                        {"modelTflopsPerSecond", m.model_tflops_per_second}};
  PutIf(&out, "peakTflops", m.peak_tflops);
  PutIf(&out, "mfu", m.mfu);
  PutIf(&out, "evalLoss", m.eval_loss);
  return out;
}

LanguageModelSummary DecodeLanguageModel(const nlohmann::json* json, const std::string& path, FieldErrors* errors) {
  LanguageModelSummary m;
  ObjectReader r(json, path, errors);
  r.String("model", &m.model);
  r.Int("parameters", &m.parameters);
  r.Int("sequenceLength", &m.sequence_length);
  r.Int("globalBatchSize", &m.global_batch_size);
  r.String("precision", &m.precision);
  r.Int("tokens", &m.tokens);
  r.Number("tokensPerSecond", &m.tokens_per_second);
  r.Number("secondsPerIteration", &m.seconds_per_iteration);
  r.Number("flopsPerToken", &m.flops_per_token);
  r.Number("modelTflopsPerSecond", &m.model_tflops_per_second);
  r.Number("peakTflops", &m.peak_tflops);
  r.Number("mfu", &m.mfu);
  r.Number("evalLoss", &m.eval_loss);
  return m;
}

nlohmann::json EncodeMemory(const MemoryFigures& m) {
  return {{"peakResidentBytes", m.peak_resident_bytes}, {"peakTensorBytes", m.peak_tensor_bytes},
          {"parameterBytes", m.parameter_bytes},        {"gradientBytes", m.gradient_bytes},
          {"optimizerStateBytes", m.optimizer_state_bytes}, {"activationBytes", m.activation_bytes}};
}

MemoryFigures DecodeMemory(const nlohmann::json* json, const std::string& path, FieldErrors* errors) {
  MemoryFigures m;
  ObjectReader r(json, path, errors);
  r.Int("peakResidentBytes", &m.peak_resident_bytes);
  r.Int("peakTensorBytes", &m.peak_tensor_bytes);
  r.Int("parameterBytes", &m.parameter_bytes);
  r.Int("gradientBytes", &m.gradient_bytes);
  r.Int("optimizerStateBytes", &m.optimizer_state_bytes);
  r.Int("activationBytes", &m.activation_bytes);
  return m;
}

}  // namespace

void EncodeFigures(const Figures& f, nlohmann::json* out) {
  (*out)["initSeconds"] = f.init_seconds;
  (*out)["runSeconds"] = f.run_seconds;
  PutIf(out, "goalReached", f.goal_reached);
  PutIf(out, "timeToAccuracySeconds", f.time_to_accuracy_seconds);
  PutIf(out, "epochs", f.epochs);
  PutIf(out, "samplesPerSecond", f.samples_per_second);
  PutIf(out, "throughputWindowSteps", f.throughput_window_steps);
  PutIf(out, "throughputWindowSeconds", f.throughput_window_seconds);
  if (!f.phase_seconds.empty()) (*out)["phaseSeconds"] = f.phase_seconds;
  PutIf(out, "computeSeconds", f.compute_seconds);
  PutIf(out, "communicationSeconds", f.communication_seconds);
  PutIf(out, "communicationRatio", f.communication_ratio);
  PutIf(out, "collectiveSeconds", f.collective_seconds);
  PutIf(out, "samples", f.samples);
  PutIf(out, "energyJoules", f.energy_joules);
  PutIf(out, "energyJoulesWholeRun", f.energy_joules_whole_run);
  PutIf(out, "energyToAccuracyJoules", f.energy_to_accuracy_joules);
  if (f.energy_shared_with) {
    (*out)["energyShared"] = !f.energy_shared_with->empty();
    (*out)["energySharedWith"] = *f.energy_shared_with;
  }
  if (f.allreduce) (*out)["allreduce"] = EncodeAllreduce(*f.allreduce);
  if (f.language_model) (*out)["languageModel"] = EncodeLanguageModel(*f.language_model);
  if (f.memory) (*out)["memory"] = EncodeMemory(*f.memory);
  if (!f.parameter_digest.empty()) (*out)["parameterDigest"] = f.parameter_digest;
}

Figures DecodeFigures(ObjectReader* r) {
  Figures f;
  r->Number("initSeconds", &f.init_seconds);
  r->Number("runSeconds", &f.run_seconds);
  bool goal = false;
  if (r->Bool("goalReached", &goal)) f.goal_reached = goal;
  r->Number("timeToAccuracySeconds", &f.time_to_accuracy_seconds);
  r->Int("epochs", &f.epochs);
  r->Number("samplesPerSecond", &f.samples_per_second);
  r->Int("throughputWindowSteps", &f.throughput_window_steps);
  r->Number("throughputWindowSeconds", &f.throughput_window_seconds);
  if (const nlohmann::json* phases = r->Object("phaseSeconds")) {
    ObjectReader pr(phases, r->PathOf("phaseSeconds"), r->errors());
    for (const std::string& phase : pr.UnreadKeys()) pr.Number(phase, &f.phase_seconds[phase]);
  }
  r->Number("computeSeconds", &f.compute_seconds);
  r->Number("communicationSeconds", &f.communication_seconds);
  r->Number("communicationRatio", &f.communication_ratio);
  r->Number("collectiveSeconds", &f.collective_seconds);
  r->Int("samples", &f.samples);
  r->Number("energyJoules", &f.energy_joules);
  r->Number("energyJoulesWholeRun", &f.energy_joules_whole_run);
  r->Number("energyToAccuracyJoules", &f.energy_to_accuracy_joules);
  bool shared = false;
  r->Bool("energyShared", &shared);  // derived from energySharedWith
  if (std::vector<std::string> with; r->Strings("energySharedWith", &with)) f.energy_shared_with = with;
  if (const nlohmann::json* a = r->Object("allreduce")) {
    f.allreduce = DecodeAllreduce(a, r->PathOf("allreduce"), r->errors());
  }
  if (const nlohmann::json* m = r->Object("languageModel")) {
    f.language_model = DecodeLanguageModel(m, r->PathOf("languageModel"), r->errors());
  }
  if (const nlohmann::json* m = r->Object("memory")) f.memory = DecodeMemory(m, r->PathOf("memory"), r->errors());
  r->String("parameterDigest", &f.parameter_digest);
  return f;
}

nlohmann::json EncodeRankResult(const RankResult& result) {
  nlohmann::json out = {{"benchmark", result.benchmark},
                        {"task", result.task},
                        {"backend", result.backend},
                        {"rank", result.rank},
                        {"worldSize", result.world_size},
                        {"status", result.status}};
  if (!result.error.empty()) out["error"] = result.error;
  EncodeFigures(result.figures, &out);
  out["environment"] = result.environment;
  return out;
}

RankResult DecodeRankResult(const nlohmann::json& json, FieldErrors* errors) {
  RankResult result;
  ObjectReader r(&json, "", errors);
  r.String("benchmark", &result.benchmark);
  r.String("task", &result.task);
  r.String("backend", &result.backend);
  r.Int("rank", &result.rank);
  r.Int("worldSize", &result.world_size);
  if (!r.String("status", &result.status)) errors->Add("status", "is required");
  r.String("error", &result.error);
  result.figures = DecodeFigures(&r);
  if (const nlohmann::json* env = r.Object("environment")) result.environment = *env;
  return result;
}

std::string RankResultJson(const RankResult& result) {
  return EncodeRankResult(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string SerializeRankResult(const RankResult& result, size_t limit) {
  auto render = [](const RankResult& r) { return RankResultJson(r) + r.summary + "\n"; };
  std::string text = render(result);
  if (text.size() <= limit) return text;
  // Environment first: the figures and the error are what a reader came for.
  RankResult trimmed = result;
  trimmed.environment = {{"truncated", true}};
  trimmed.summary = AbbreviateUtf8(trimmed.summary, 200);
  text = render(trimmed);
  // JSON escaping makes the encoded error longer than the raw one, hence the loop.
  while (text.size() > limit && !trimmed.error.empty()) {
    size_t excess = text.size() - limit + 3;
    trimmed.error = AbbreviateUtf8(trimmed.error, trimmed.error.size() > excess ? trimmed.error.size() - excess : 0);
    text = render(trimmed);
  }
  return text;
}

StatusOr<RankResult> ParseRankResult(const std::string& text) {
  std::string first_line = text.substr(0, text.find('\n'));
  nlohmann::json json = nlohmann::json::parse(first_line, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return Status::InvalidArgument("result is not JSON: " + AbbreviateUtf8(first_line, 120));
  }
  FieldErrors errors;
  RankResult result = DecodeRankResult(json, &errors);
  if (!errors.empty()) return Status::InvalidArgument("malformed result: " + errors.ToString());
  size_t newline = text.find('\n');
  if (newline != std::string::npos) {
    std::string rest = text.substr(newline + 1);
    result.summary = rest.substr(0, rest.find('\n'));
  }
  return result;
}

namespace {

nlohmann::json EncodePriceUsed(const PriceUsed& p) {
  nlohmann::json out = {{"kind", p.kind}, {"onDemandHour", p.on_demand_hour}};
  PutIfNotEmpty(&out, "instanceType", p.instance_type);
  PutIfNotEmpty(&out, "region", p.region);
  PutIf(&out, "spotHour", p.spot_hour);
  PutIfNotEmpty(&out, "effectiveDate", p.effective_date);
  PutIfNotEmpty(&out, "source", p.source);
  PutIf(&out, "ageDays", p.age_days);
  if (p.stale) out["stale"] = true;
  return out;
}

PriceUsed DecodePriceUsed(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  PriceUsed p;
  ObjectReader r(&json, path, errors);
  r.String("kind", &p.kind);
  r.String("instanceType", &p.instance_type);
  r.String("region", &p.region);
  r.Number("onDemandHour", &p.on_demand_hour);
  r.Number("spotHour", &p.spot_hour);
  r.String("effectiveDate", &p.effective_date);
  r.String("source", &p.source);
  r.Int("ageDays", &p.age_days);
  r.Bool("stale", &p.stale);
  return p;
}

nlohmann::json EncodeCarbon(const CarbonFigures& c) {
  nlohmann::json out = {{"region", c.region}, {"gramsPerKwh", c.grams_per_kwh}, {"year", c.year}, {"source", c.source}};
  PutIf(&out, "grams", c.grams);
  PutIf(&out, "gramsToAccuracy", c.grams_to_accuracy);
  return out;
}

CarbonFigures DecodeCarbon(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  CarbonFigures c;
  ObjectReader r(&json, path, errors);
  r.String("region", &c.region);
  r.Number("gramsPerKwh", &c.grams_per_kwh);
  r.Int("year", &c.year);
  r.String("source", &c.source);
  r.Number("grams", &c.grams);
  r.Number("gramsToAccuracy", &c.grams_to_accuracy);
  return c;
}

nlohmann::json EncodeRepeat(const RepeatResult& repeat) {
  return {{"repeat", repeat.repeat}, {"seed", repeat.seed}, {"figures", repeat.figures}};
}

RepeatResult DecodeRepeat(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  RepeatResult repeat;
  ObjectReader r(&json, path, errors);
  r.Int("repeat", &repeat.repeat);
  r.Int("seed", &repeat.seed);
  repeat.figures = DecodeNumberMap(&r, "figures");
  return repeat;
}

nlohmann::json EncodeVerdict(const BaselineVerdict& v) {
  return {{"figure", v.figure}, {"baseline", v.baseline}, {"value", v.value},
          {"bandPercent", v.band_percent}, {"basis", v.basis}, {"regressed", v.regressed}};
}

BaselineVerdict DecodeVerdict(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  BaselineVerdict v;
  ObjectReader r(&json, path, errors);
  r.String("figure", &v.figure);
  r.Number("baseline", &v.baseline);
  r.Number("value", &v.value);
  r.Number("bandPercent", &v.band_percent);
  r.String("basis", &v.basis);
  r.Bool("regressed", &v.regressed);
  return v;
}

// The list at `key`, each item decoded with its index in the path.
template <typename T, typename Decode>
std::vector<T> DecodeList(ObjectReader* r, const std::string& key, Decode decode) {
  std::vector<T> out;
  const nlohmann::json* list = r->Raw(key);
  if (list == nullptr) return out;
  if (!list->is_array()) {
    r->errors()->Add(r->PathOf(key), "must be a list");
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) out.push_back(decode((*list)[i], IndexPath(r->PathOf(key), i), r->errors()));
  return out;
}

}  // namespace

Summary DecodeSummary(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  Summary s;
  ObjectReader r(&json, path, errors);
  r.Int("n", &s.n);
  r.Number("median", &s.median);
  r.Number("min", &s.min);
  r.Number("max", &s.max);
  r.Number("mean", &s.mean);
  r.Number("stddev", &s.stddev);
  r.Number("olympicMean", &s.olympic_mean);
  r.Number("ci95Low", &s.ci95_low);
  r.Number("ci95High", &s.ci95_high);
  return s;
}

nlohmann::json EncodeSummary(const Summary& s) {
  nlohmann::json out = {{"n", s.n}, {"median", s.median}, {"min", s.min}, {"max", s.max}, {"mean", s.mean}};
  PutIf(&out, "stddev", s.stddev);
  PutIf(&out, "olympicMean", s.olympic_mean);
  PutIf(&out, "ci95Low", s.ci95_low);
  PutIf(&out, "ci95High", s.ci95_high);
  return out;
}

nlohmann::json EncodeRepeats(const std::vector<RepeatResult>& repeats) {
  nlohmann::json out = nlohmann::json::array();
  for (const RepeatResult& r : repeats) out.push_back(EncodeRepeat(r));
  return out;
}

std::vector<RepeatResult> DecodeRepeats(ObjectReader* reader, const std::string& key) {
  return DecodeList<RepeatResult>(reader, key, DecodeRepeat);
}

nlohmann::json EncodeBenchmarkResults(const BenchmarkResults& results) {
  nlohmann::json out = nlohmann::json::object();
  EncodeFigures(results.figures, &out);
  PutIf(&out, "joulesPerSample", results.joules_per_sample);
  PutIf(&out, "samplesPerWh", results.samples_per_wh);
  PutIf(&out, "epochWh", results.epoch_wh);
  PutIf(&out, "joulesPerToken", results.joules_per_token);
  PutIf(&out, "tokensPerWh", results.tokens_per_wh);
  PutIf(&out, "energyToAccuracyWh", results.energy_to_accuracy_wh);
  PutIf(&out, "costUSD", results.cost_usd);
  PutIf(&out, "costToAccuracyUSD", results.cost_to_accuracy_usd);
  PutIf(&out, "preemptibleCostUSD", results.preemptible_cost_usd);
  PutIf(&out, "preemptibleCostToAccuracyUSD", results.preemptible_cost_to_accuracy_usd);
  if (!results.currency.empty()) out["currency"] = results.currency;
  PutIf(&out, "costPerMillionSamples", results.cost_per_million_samples);
  PutIf(&out, "costPerMillionTokens", results.cost_per_million_tokens);
  PutIfNotEmpty(&out, "costBasis", results.cost_basis);
  for (const PriceUsed& p : results.prices) out["prices"].push_back(EncodePriceUsed(p));
  if (!results.cost_warnings.empty()) out["costWarnings"] = results.cost_warnings;
  if (results.carbon) out["carbon"] = EncodeCarbon(*results.carbon);
  if (results.system) out["system"] = EncodeSystemIdentity(*results.system);
  if (!results.repeats.empty()) out["repeats"] = EncodeRepeats(results.repeats);
  for (const auto& [figure, summary] : results.summary) out["summary"][figure] = EncodeSummary(summary);
  PutIfNotEmpty(&out, "baseline", results.baseline);
  for (const BaselineVerdict& v : results.verdicts) out["verdicts"].push_back(EncodeVerdict(v));
  if (!results.environment.empty()) out["environment"] = results.environment;
  return out;
}

BenchmarkResults DecodeBenchmarkResults(const nlohmann::json& json, const std::string& path,
                                        FieldErrors* errors) {
  BenchmarkResults results;
  ObjectReader r(&json, path, errors);
  results.figures = DecodeFigures(&r);
  r.Number("joulesPerSample", &results.joules_per_sample);
  r.Number("samplesPerWh", &results.samples_per_wh);
  r.Number("epochWh", &results.epoch_wh);
  r.Number("joulesPerToken", &results.joules_per_token);
  r.Number("tokensPerWh", &results.tokens_per_wh);
  r.Number("energyToAccuracyWh", &results.energy_to_accuracy_wh);
  r.Number("costUSD", &results.cost_usd);
  r.Number("costToAccuracyUSD", &results.cost_to_accuracy_usd);
  r.Number("preemptibleCostUSD", &results.preemptible_cost_usd);
  r.Number("preemptibleCostToAccuracyUSD", &results.preemptible_cost_to_accuracy_usd);
  r.String("currency", &results.currency);
  r.Number("costPerMillionSamples", &results.cost_per_million_samples);
  r.Number("costPerMillionTokens", &results.cost_per_million_tokens);
  r.String("costBasis", &results.cost_basis);
  results.prices = DecodeList<PriceUsed>(&r, "prices", DecodePriceUsed);
  r.Strings("costWarnings", &results.cost_warnings);
  if (const nlohmann::json* carbon = r.Object("carbon")) results.carbon = DecodeCarbon(*carbon, r.PathOf("carbon"), errors);
  if (const nlohmann::json* system = r.Object("system")) {
    results.system = DecodeSystemIdentity(*system, r.PathOf("system"), errors);
  }
  results.repeats = DecodeRepeats(&r, "repeats");
  if (const nlohmann::json* summary = r.Object("summary")) {
    for (const auto& [figure, value] : summary->items()) {
      results.summary[figure] = DecodeSummary(value, JoinPath(r.PathOf("summary"), figure), errors);
    }
  }
  r.String("baseline", &results.baseline);
  results.verdicts = DecodeList<BaselineVerdict>(&r, "verdicts", DecodeVerdict);
  if (const nlohmann::json* env = r.Object("environment")) results.environment = *env;
  return results;
}

}  // namespace ergobench
