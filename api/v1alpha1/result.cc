#include "api/v1alpha1/result.h"

#include "base/json_fields.h"
#include "base/json_reader.h"
#include "base/utf8.h"

namespace ergobench {
namespace {

constexpr Written kAlways = Written::kAlways;

const JsonFields<AllreduceSummary>& AllreduceFields() {
  using A = AllreduceSummary;
  static const JsonFields<A> fields = JsonFields<A>()
                                          .Add("collective", &A::collective, Written::kUnlessEmpty)
                                          .Add("sizes", &A::sizes, kAlways)
                                          .Add("repetitions", &A::repetitions, kAlways)
                                          .Add("dtype", &A::dtype, kAlways)
                                          .Add("peakBusBandwidthBytesPerSecond", &A::peak_bus_bandwidth_bytes_per_second, kAlways)
                                          .Add("peakBusBandwidthBytes", &A::peak_bus_bandwidth_bytes, kAlways)
                                          .Add("minLatencySeconds", &A::min_latency_seconds, kAlways);
  return fields;
}

const JsonFields<LanguageModelSummary>& LanguageModelFields() {
  using M = LanguageModelSummary;
  static const JsonFields<M> fields = JsonFields<M>()
                                          .Add("model", &M::model, kAlways)
                                          .Add("parameters", &M::parameters, kAlways)
                                          .Add("sequenceLength", &M::sequence_length, kAlways)
                                          .Add("globalBatchSize", &M::global_batch_size, kAlways)
                                          .Add("precision", &M::precision, kAlways)
                                          .Add("tokens", &M::tokens, kAlways)
                                          .Add("tokensPerSecond", &M::tokens_per_second, kAlways)
                                          .Add("secondsPerIteration", &M::seconds_per_iteration, kAlways)
                                          .Add("flopsPerToken", &M::flops_per_token, kAlways)
                                          .Add("modelTflopsPerSecond", &M::model_tflops_per_second, kAlways)
                                          .Add("peakTflops", &M::peak_tflops)
                                          .Add("mfu", &M::mfu)
                                          .Add("evalLoss", &M::eval_loss);
  return fields;
}

const JsonFields<TranslationSummary>& TranslationFields() {
  using T = TranslationSummary;
  static const JsonFields<T> fields = JsonFields<T>()
                                          .Add("bleu", &T::bleu)
                                          .Add("sourceTokens", &T::source_tokens, kAlways)
                                          .Add("targetTokens", &T::target_tokens, kAlways)
                                          .Add("sourceTokensPerSecond", &T::source_tokens_per_second, kAlways)
                                          .Add("targetTokensPerSecond", &T::target_tokens_per_second, kAlways)
                                          .Add("precision", &T::precision, kAlways)
                                          .Add("beam", &T::beam, kAlways);
  return fields;
}

const JsonFields<MemoryFigures>& MemoryFields() {
  using M = MemoryFigures;
  static const JsonFields<M> fields = JsonFields<M>()
                                          .Add("peakResidentBytes", &M::peak_resident_bytes, kAlways)
                                          .Add("peakTensorBytes", &M::peak_tensor_bytes, kAlways)
                                          .Add("peakReservedBytes", &M::peak_reserved_bytes)
                                          .Add("parameterBytes", &M::parameter_bytes, kAlways)
                                          .Add("gradientBytes", &M::gradient_bytes, kAlways)
                                          .Add("optimizerStateBytes", &M::optimizer_state_bytes, kAlways)
                                          .Add("activationBytes", &M::activation_bytes, kAlways);
  return fields;
}

const JsonFields<IoFigures>& IoFields() {
  using I = IoFigures;
  static const JsonFields<I> fields = JsonFields<I>()
                                          .Add("dataBytes", &I::data_bytes, kAlways)
                                          .Add("dataBytesPerSecond", &I::data_bytes_per_second, kAlways)
                                          .Add("storageBytes", &I::storage_bytes)
                                          .Add("loadSeconds", &I::load_seconds, kAlways)
                                          .Add("loadingSamplesPerSecond", &I::loading_samples_per_second);
  return fields;
}

// energyShared restates energySharedWith for readers of the JSON: written from it, read and
// dropped.
void ReadEnergyShared(ObjectReader* r, const std::string& key, Figures*) {
  bool shared = false;
  r->Bool(key, &shared);
}
void WriteEnergyShared(const Figures& f, const std::string& key, nlohmann::json* out) {
  if (f.energy_shared_with) (*out)[key] = !f.energy_shared_with->empty();
}

const JsonFields<Figures>& FigureFields() {
  using F = Figures;
  static const JsonFields<F> fields = JsonFields<F>()
                                          .Add("initSeconds", &F::init_seconds, kAlways)
                                          .Add("runSeconds", &F::run_seconds, kAlways)
                                          .Add("runStartMs", &F::run_start_ms)
                                          .Add("runStopMs", &F::run_stop_ms)
                                          .Add("goalReached", &F::goal_reached)
                                          .Add("timeToAccuracySeconds", &F::time_to_accuracy_seconds)
                                          .Add("epochs", &F::epochs)
                                          .Add("samplesPerSecond", &F::samples_per_second)
                                          .Add("throughputWindowSteps", &F::throughput_window_steps)
                                          .Add("throughputWindowSeconds", &F::throughput_window_seconds)
                                          .Add("phaseSeconds", &F::phase_seconds)
                                          .Add("computeSeconds", &F::compute_seconds)
                                          .Add("communicationSeconds", &F::communication_seconds)
                                          .Add("communicationRatio", &F::communication_ratio)
                                          .Add("dataWaitShare", &F::data_wait_share)
                                          .Add("collectiveSeconds", &F::collective_seconds)
                                          .Add("samples", &F::samples)
                                          .Add("energyJoules", &F::energy_joules)
                                          .Add("energyJoulesWholeRun", &F::energy_joules_whole_run)
                                          .Add("energyToAccuracyJoules", &F::energy_to_accuracy_joules)
                                          .Custom("energyShared", ReadEnergyShared, WriteEnergyShared)
                                          .Add("energySharedWith", &F::energy_shared_with)
                                          .Object("allreduce", &F::allreduce, AllreduceFields())
                                          .Object("languageModel", &F::language_model, LanguageModelFields())
                                          .Object("translation", &F::translation, TranslationFields())
                                          .Add("lossScale", &F::loss_scale)
                                          .Add("skippedUpdates", &F::skipped_updates)
                                          .Object("memory", &F::memory, MemoryFields())
                                          .Object("io", &F::io, IoFields())
                                          .Add("flopsPerSample", &F::flops_per_sample)
                                          .Add("modelFlopsPerSecond", &F::model_flops_per_second)
                                          .Add("peakFlopsPerSecond", &F::peak_flops_per_second)
                                          .Add("peakBasis", &F::peak_basis)
                                          .Add("achievableFlopsPerSecond", &F::achievable_flops_per_second)
                                          .Add("mfu", &F::mfu)
                                          .Add("parameterDigest", &F::parameter_digest);
  return fields;
}

void ReadRequiredStatus(ObjectReader* r, const std::string& key, RankResult* out) {
  if (!r->String(key, &out->status)) r->errors()->Add(r->PathOf(key), "is required");
}
void WriteStatus(const RankResult& result, const std::string& key, nlohmann::json* out) { (*out)[key] = result.status; }

const JsonFields<RankResult>& RankResultFields() {
  using R = RankResult;
  static const JsonFields<R> fields = JsonFields<R>()
                                          .Add("benchmark", &R::benchmark, kAlways)
                                          .Add("task", &R::task, kAlways)
                                          .Add("backend", &R::backend, kAlways)
                                          .Add("rank", &R::rank, kAlways)
                                          .Add("worldSize", &R::world_size, kAlways)
                                          .Custom("status", ReadRequiredStatus, WriteStatus)
                                          .Add("error", &R::error)
                                          .Inline(&R::figures, FigureFields())
                                          .Json("environment", &R::environment, JsonShape::kObject, kAlways);
  return fields;
}

const JsonFields<PriceUsed>& PriceUsedFields() {
  using P = PriceUsed;
  static const JsonFields<P> fields = JsonFields<P>()
                                          .Add("kind", &P::kind, kAlways)
                                          .Add("instanceType", &P::instance_type)
                                          .Add("region", &P::region)
                                          .Add("onDemandHour", &P::on_demand_hour, kAlways)
                                          .Add("spotHour", &P::spot_hour)
                                          .Add("effectiveDate", &P::effective_date)
                                          .Add("source", &P::source)
                                          .Add("ageDays", &P::age_days)
                                          .Add("stale", &P::stale);
  return fields;
}

const JsonFields<CarbonFigures>& CarbonFields() {
  using C = CarbonFigures;
  static const JsonFields<C> fields = JsonFields<C>()
                                          .Add("region", &C::region, kAlways)
                                          .Add("gramsPerKwh", &C::grams_per_kwh, kAlways)
                                          .Add("year", &C::year, kAlways)
                                          .Add("source", &C::source, kAlways)
                                          .Add("grams", &C::grams)
                                          .Add("gramsToAccuracy", &C::grams_to_accuracy);
  return fields;
}

}  // namespace

const JsonFields<RepeatResult>& RepeatFields() {
  using R = RepeatResult;
  static const JsonFields<R> fields = JsonFields<R>()
                                          .Add("repeat", &R::repeat, kAlways)
                                          .Add("seed", &R::seed, kAlways)
                                          .Add("figures", &R::figures, kAlways)
                                          .Add("goalReached", &R::goal_reached)
                                          .Add("samples", &R::samples)
                                          .Add("epochs", &R::epochs);
  return fields;
}

const JsonFields<MlperfScore>& MlperfScoreFields() {
  using M = MlperfScore;
  static const JsonFields<M> fields = JsonFields<M>()
                                          .Add("benchmark", &M::benchmark, kAlways)
                                          .Add("requiredRuns", &M::required_runs, kAlways)
                                          .Add("runs", &M::runs, kAlways)
                                          .Add("converged", &M::converged, kAlways)
                                          .Add("timeToTrainMinutes", &M::time_to_train_minutes)
                                          .Add("samplesToConverge", &M::samples_to_converge)
                                          .Add("epochsToConverge", &M::epochs_to_converge)
                                          .Add("complete", &M::complete, kAlways)
                                          .Add("note", &M::note);
  return fields;
}

namespace {

const JsonFields<BaselineVerdict>& VerdictFields() {
  using V = BaselineVerdict;
  static const JsonFields<V> fields = JsonFields<V>()
                                          .Add("figure", &V::figure, kAlways)
                                          .Add("baseline", &V::baseline, kAlways)
                                          .Add("value", &V::value, kAlways)
                                          .Add("bandPercent", &V::band_percent, kAlways)
                                          .Add("basis", &V::basis, kAlways)
                                          .Add("regressed", &V::regressed, kAlways);
  return fields;
}

}  // namespace

const JsonFields<Summary>& SummaryFields() {
  using S = Summary;
  static const JsonFields<S> fields = JsonFields<S>()
                                          .Add("n", &S::n, kAlways)
                                          .Add("median", &S::median, kAlways)
                                          .Add("min", &S::min, kAlways)
                                          .Add("max", &S::max, kAlways)
                                          .Add("mean", &S::mean, kAlways)
                                          .Add("stddev", &S::stddev)
                                          .Add("olympicMean", &S::olympic_mean)
                                          .Add("ci95Low", &S::ci95_low)
                                          .Add("ci95High", &S::ci95_high);
  return fields;
}

const JsonFields<BenchmarkResults>& BenchmarkResultsFields() {
  using B = BenchmarkResults;
  static const JsonFields<B> fields = JsonFields<B>()
                                          .Inline(&B::figures, FigureFields())
                                          .Add("joulesPerSample", &B::joules_per_sample)
                                          .Add("samplesPerWh", &B::samples_per_wh)
                                          .Add("epochWh", &B::epoch_wh)
                                          .Add("joulesPerToken", &B::joules_per_token)
                                          .Add("tokensPerWh", &B::tokens_per_wh)
                                          .Add("energyToAccuracyWh", &B::energy_to_accuracy_wh)
                                          .Add("costUSD", &B::cost_usd)
                                          .Add("costToAccuracyUSD", &B::cost_to_accuracy_usd)
                                          .Add("preemptibleCostUSD", &B::preemptible_cost_usd)
                                          .Add("preemptibleCostToAccuracyUSD", &B::preemptible_cost_to_accuracy_usd)
                                          .Add("currency", &B::currency)
                                          .Add("costPerMillionSamples", &B::cost_per_million_samples)
                                          .Add("costPerMillionTokens", &B::cost_per_million_tokens)
                                          .Add("costBasis", &B::cost_basis)
                                          .List("prices", &B::prices, PriceUsedFields())
                                          .Add("costWarnings", &B::cost_warnings)
                                          .Object("carbon", &B::carbon, CarbonFields())
                                          .Object("system", &B::system, SystemIdentityFields())
                                          .List("repeats", &B::repeats, RepeatFields())
                                          .Map("summary", &B::summary, SummaryFields())
                                          .Object("mlperf", &B::mlperf, MlperfScoreFields())
                                          .Add("baseline", &B::baseline)
                                          .List("verdicts", &B::verdicts, VerdictFields())
                                          .Json("environment", &B::environment, JsonShape::kObject);
  return fields;
}


nlohmann::json EncodeRankResult(const RankResult& result) { return RankResultFields().Encode(result); }

RankResult DecodeRankResult(const nlohmann::json& json, FieldErrors* errors) {
  return RankResultFields().Decode(&json, "", errors);
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

nlohmann::json EncodeSummary(const Summary& summary) { return SummaryFields().Encode(summary); }

nlohmann::json EncodeBenchmarkResults(const BenchmarkResults& results) { return BenchmarkResultsFields().Encode(results); }

BenchmarkResults DecodeBenchmarkResults(const nlohmann::json& json, const std::string& path, FieldErrors* errors) {
  return BenchmarkResultsFields().Decode(&json, path, errors);
}

}  // namespace ergobench
