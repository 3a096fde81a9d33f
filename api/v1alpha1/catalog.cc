#include "api/v1alpha1/catalog.h"

namespace ergobench {
namespace {

HyperparameterDef Integer(std::string name, int64_t value, double min, double max, std::string description) {
  return HyperparameterDef{std::move(name), ParamType::kInteger, value, min, max, {}, std::move(description)};
}
HyperparameterDef Number(std::string name, double value, double min, double max, std::string description) {
  return HyperparameterDef{std::move(name), ParamType::kNumber, value, min, max, {}, std::move(description)};
}
HyperparameterDef Text(std::string name, std::string value, std::vector<std::string> choices, std::string description) {
  return HyperparameterDef{std::move(name), ParamType::kString, std::move(value), std::nullopt, std::nullopt,
                           std::move(choices), std::move(description)};
}

// How every training task averages gradients (runner/sync/gradient_sync.h).
HyperparameterDef GradientSyncDef() {
  return {"gradientSync", ParamType::kString, "flat", std::nullopt, std::nullopt, {"flat", "overlap", "sharded"},
          "flat: one all-reduce after backward; overlap: bucketed all-reduces during backward, as PyTorch DDP; "
          "sharded: ZeRO, each rank updates 1/k of the parameters (zeroStage)"};
}
HyperparameterDef BucketMibDef() {
  return {"bucketMiB", ParamType::kNumber, 25, 0.001, 1024, {},
          "overlap's bucket and sharded's unit size in MiB (DDP's default 25)"};
}
// Stage 3 needs a model that gathers its parameters block by block: gpt's.
HyperparameterDef ZeroStageDef(int max_stage) {
  return {"zeroStage", ParamType::kInteger, 1, 1, static_cast<double>(max_stage), {},
          max_stage == 3 ? "sharded: 1 shards the optimizer state, 2 also the gradients (freed during backward), 3 "
                           "also the parameters (gathered block by block)"
                         : "sharded: 1 shards the optimizer state, 2 also the gradients (freed during backward)"};
}

// MLBench task 0a: float32 all-reduce of round(logspace(0, 8, 80)) elements, each timed
// 100 times. Sizes and repetitions can be narrowed for quick runs.
TaskDef AllreduceTask() {
  TaskDef allreduce;
  allreduce.id = "0a";
  allreduce.title = "All-reduce bandwidth sweep";
  allreduce.origin = "MLBench task 0a";
  allreduce.backends = {"gloo", "mpi", "nccl"};
  allreduce.dataset_sources = {"synthetic"};
  allreduce.hyperparameters = {
      {"minElements", ParamType::kInteger, 1, 1, 1e9, {}, "smallest message, in elements"},
      {"maxElements", ParamType::kInteger, 100000000, 1, 1e9, {}, "largest message, in elements"},
      {"sizes", ParamType::kInteger, 80, 1, 1000, {}, "message sizes, log-spaced from min to max"},
      {"repetitions", ParamType::kInteger, 100, 1, 100000, {}, "timed all-reduces per size"},
      {"warmup", ParamType::kInteger, 5, 0, 10000, {}, "untimed all-reduces per size before timing"},
      {"dtype", ParamType::kString, "float32", std::nullopt, std::nullopt, {"float32", "float16"},
       "element type"},
      {"collective", ParamType::kString, "all_reduce", std::nullopt, std::nullopt,
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"},
       "the collective swept, as nccl-tests names it; sizes count its whole buffer"},
  };
  return allreduce;
}

// What every training task shares: an accuracy goal, epochs, and data from a path, a url or a
// synthetic stand-in.
TaskDef TrainingTask(std::string id, std::string title, std::string origin, double reference_target,
                     double light_target, int64_t max_epochs, std::vector<HyperparameterDef> recipe) {
  TaskDef task;
  task.id = std::move(id);
  task.title = std::move(title);
  task.origin = std::move(origin);
  task.trains = true;
  task.goal_metric = "accuracy";
  task.reference_target = reference_target;
  task.light_target = light_target;
  task.default_max_epochs = max_epochs;
  task.backends = {"gloo", "mpi", "nccl"};
  task.dataset_sources = {"path", "url", "synthetic"};
  task.hyperparameters = std::move(recipe);
  return task;
}

// A GPT-2-style language model (CARAML's LLM benchmark, the Turing table): tokens/s,
// model TFLOP/s and MFU, energy per token; time to a validation loss on a real corpus.
// Goal targets depend on the corpus and the tokenizer (nats per token); the defaults
// suit GPT-2's tokenizer on English web text.
TaskDef GptTask() {
  TaskDef gpt = TrainingTask("gpt", "GPT-2-style language model", "CARAML LLM training; GPT-2 architecture", 3.3,
                             4.5, 1000, {});
  gpt.goal_metric = "loss";
  gpt.goal_minimizes = true;
  gpt.goal_max = 100;
  gpt.dataset_sources = {"synthetic", "path"};
  gpt.hyperparameters = {
      // runner/models/gpt_config.cc defines the shapes; gpt_config_test checks both lists agree.
      Text("model", "gpt2",
           {"gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "gpt2-xxl", "gpt2-xxxl", "caraml-117m", "caraml-800m", "tiny",
            "mini"},
           "size preset (layers x width): GPT-2's four, the Turing table's two larger, CARAML's 117M and 800M, tiny and "
           "mini for tests"),
      Integer("layers", 0, 0, 1024, "transformer blocks (0: the preset's)"),
      Integer("hidden", 0, 0, 65536, "model width (0: the preset's)"),
      Integer("heads", 0, 0, 1024, "attention heads (0: the preset's)"),
      Integer("sequenceLength", 0, 0, 65536, "tokens per sequence (0: the preset's)"),
      Integer("batchSize", 4, 1, 65536, "sequences per worker per micro-step"),
      Integer("gradientAccumulation", 1, 1, 65536, "micro-steps per optimizer step"),
      Number("learningRate", 6e-4, 0, 1, "peak AdamW learning rate"),
      Number("minLearningRate", 6e-5, 0, 1, "where the cosine decay ends"),
      Integer("lrWarmupSteps", 20, 0, 10000000, "optimizer steps of linear learning-rate warm-up"),
      Integer("maxSteps", 100, 1, 1e9, "optimizer steps to run (the goal may stop earlier)"),
      Integer("decaySteps", 0, 0, 1e9, "step where the cosine decay ends (0: maxSteps)"),
      Number("weightDecay", 0.1, 0, 1, "AdamW decoupled weight decay of the weight matrices"),
      Number("beta1", 0.9, 0, 1, "AdamW beta1"),
      Number("beta2", 0.95, 0, 1, "AdamW beta2"),
      Number("epsilon", 1e-8, 0, 1, "AdamW epsilon"),
      Number("gradClip", 1.0, 0, 1e6, "clip the global gradient norm to this (0: no clipping)"),
      Text("precision", "auto", {"auto", "fp32", "bf16", "fp16"},
           "autocast type; auto: bf16 on GPUs, fp32 on CPUs; fp16 scales the loss dynamically"),
      Integer("evalInterval", 50, 1, 1e9, "optimizer steps between validation-loss evaluations"),
      Integer("evalSequences", 64, 1, 1e9, "held-out sequences at the end of the corpus for validation"),
      Text("vocabFile", "", {}, "GPT-2 vocab.json (relative: under dataset.path); empty: byte-level tokens"),
      Text("mergesFile", "", {}, "GPT-2 merges.txt, with vocabFile"),
      Text("corpusFormat", "auto", {"auto", "text", "jsonl"}, "text files, or JSON Lines with a text field"),
      Text("textField", "text", {}, "the JSON Lines field holding a document"),
      Integer("maxTokens", 0, 0, 1e12, "read at most this many corpus tokens (0: all)"),
      Number("peakTflops", 0, 0, 1e6, "peak TFLOP/s of one device for MFU (0: estimated from the device)"),
      Integer("seed", 42, 0, 2147483647, "initialisation, shuffling and synthetic tokens"),
      Integer("warmupSteps", 3, 0, 1000000, "optimizer steps left out of the throughput window"),
      GradientSyncDef(),
      BucketMibDef(),
      ZeroStageDef(3),
  };
  return gpt;
}

// Where a path dataset's files are: MLBench's WMT16 archive (4a's, text) or its WMT17 one (4b's,
// fairseq's binary IndexedDataset of tensor2tensor subtokens).
std::vector<HyperparameterDef> CorpusDefs(const std::string& format) {
  const bool wmt16 = format == "wmt16";
  return {
      Text("corpusFormat", format, {"wmt16", "wmt17"},
           "source path: wmt16, BPE text files <prefix>.<language> and a vocabulary of one token a line; wmt17, "
           "fairseq's <prefix>.<source>-<target>.<language>.idx/.bin and a dictionary of quoted subtokens"),
      Text("trainPrefix", wmt16 ? "train.tok.clean.bpe.32000" : "train", {}, "source path: the training files' prefix"),
      Text("testPrefix", wmt16 ? "newstest2014.tok.bpe.32000" : "test", {}, "source path: the test files' prefix"),
      Text("vocabFile", wmt16 ? "vocab.bpe.32000" : "dict.en.txt", {},
           "source path: the vocabulary both languages share"),
  };
}

// What MLBench's translation tasks share after their own model and recipe: precision and loss
// scaling, BLEU's decoding, the data (a folder in the WMT16 text layout,
// runner/data/parallel_corpus.h, or the synthetic language pair) and the gradient sync.
TaskDef TranslationTask(std::string id, std::string title, double reference_target, double light_target,
                        int64_t max_epochs, std::vector<HyperparameterDef> recipe) {
  const std::string origin = "MLBench task " + id;
  TaskDef task = TrainingTask(std::move(id), std::move(title), origin, reference_target, light_target, max_epochs,
                              std::move(recipe));
  task.goal_metric = "bleu";
  task.goal_max = 100;
  task.dataset_sources = {"synthetic", "path"};
  const std::vector<HyperparameterDef> shared = {
      Integer("gradientAccumulation", 0, 0, 65536,
              "micro-batches per update (MLBench's update_freq); 0: max(16 / k, 1), as MLBench"),
      Number("labelSmoothing", 0.1, 0, 1, "label smoothing of the cross entropy"),
      Text("precision", "auto", {"auto", "fp32", "bf16", "fp16"},
           "autocast type; auto: bf16 on GPUs, fp32 on CPUs; fp16 (GPUs) scales the loss dynamically"),
      Integer("evalSentences", 0, 0, 1e9, "test sentences translated at each evaluation (0: all)"),
      Number("lengthPenalty", 0.6, 0, 10, "GNMT's length normalisation exponent of beam search"),
      Text("sourceLanguage", "en", {}, "the suffix of the source files"),
      Text("targetLanguage", "de", {}, "the suffix of the target files"),
      Integer("syntheticSentences", 20000, 16, 1e8, "source synthetic: training pairs of the synthetic language pair"),
      Integer("syntheticTestSentences", 500, 1, 1e6, "source synthetic: test pairs"),
      Integer("syntheticNouns", 64, 1, 4096, "source synthetic: nouns of the pair's grammar (fewer: a smaller vocabulary)"),
      Integer("syntheticClauses", 2, 1, 8, "source synthetic: clauses a sentence may have, joined by \"and\""),
      Integer("seed", 42, 0, 2147483647, "initialisation, batching and the synthetic pair"),
      Integer("warmupSteps", 3, 0, 1000000, "updates left out of the throughput window"),
      GradientSyncDef(),
      BucketMibDef(),
      ZeroStageDef(2),
  };
  task.hyperparameters.insert(task.hyperparameters.end(), shared.begin(), shared.end());
  const std::vector<HyperparameterDef> corpus = CorpusDefs(task.id == "4a" ? "wmt16" : "wmt17");
  task.hyperparameters.insert(task.hyperparameters.end(), corpus.begin(), corpus.end());
  return task;
}

// MLBench task 4a: GNMT (runner/models/gnmt.h) with its recipe (batches of 128 sentence pairs,
// Adam, exponential warm-up over 200 updates then halved from 40% of the run every 5%, at most
// 4 times, gradients summed over workers and clipped at norm 5, beam search of 5 with a
// coverage penalty), BLEU as sacreBLEU computes it as the goal (MLBench's 24.0).
TaskDef GnmtTranslationTask() {
  return TranslationTask(
      "4a", "GNMT on WMT16 EN-DE", 24.0, 20.0, 8,
      {
          Integer("hidden", 1024, 8, 65536, "width of the embedding, the LSTMs and the attention"),
          Integer("layers", 4, 2, 64, "encoder LSTMs (the first bidirectional), and as many in the decoder"),
          Number("dropout", 0.2, 0, 0.9, "dropout on every LSTM's input"),
          Integer("batchSize", 128, 1, 1e6, "sentence pairs per worker per micro-batch"),
          Number("learningRate", 2e-3, 0, 1, "Adam's peak learning rate"),
          Integer("lrWarmupSteps", 200, 0, 1e7, "updates of exponential warm-up from learningRate / 100"),
          Number("lrDecayStart", 0.4, 0, 1, "the first decay, as a fraction of the run's updates"),
          Number("lrDecayInterval", 0.05, 0, 1, "updates between decays, as a fraction of the run's"),
          Integer("lrDecaySteps", 4, 0, 1000, "decays at most"),
          Number("lrDecayFactor", 0.5, 0, 1, "each decay multiplies the rate by this"),
          Number("beta1", 0.9, 0, 1, "Adam beta1"),
          Number("beta2", 0.999, 0, 1, "Adam beta2"),
          Number("epsilon", 1e-8, 0, 1, "Adam epsilon"),
          Number("gradClip", 5.0, 0, 1e6, "clip the summed gradients' norm to this (0: no clipping)"),
          Integer("maxLength", 75, 2, 1024, "tokens a training sentence may have on either side; longer pairs are left out"),
          Integer("testMaxLength", 150, 2, 1024, "the same for test pairs"),
          Number("lossScale", 1024, 1, 1e9, "fp16: the initial loss scale (MLBench 4a: 2^10)"),
          Integer("lossScaleWindow", 128, 1, 1e9, "fp16: clean updates before the scale doubles"),
          Number("lossScaleMax", 8192, 1, 1e12, "fp16: the scale grows no further (MLBench 4a: 2^13)"),
          Integer("beam", 5, 1, 64, "beam width of the BLEU evaluation's decoding (1: greedy)"),
          Number("coveragePenalty", 0.1, 0, 10, "GNMT's coverage penalty weight in beam search"),
      });
}

// MLBench task 4b: the Transformer (runner/models/transformer.h) with its recipe (Adam 0.9/0.98,
// inverse square-root learning rate after 1000 updates of warm-up, label smoothing 0.1, 8192
// tokens a batch), BLEU as sacreBLEU computes it as the goal (MLBench's 25.0).
TaskDef TransformerTranslationTask() {
  return TranslationTask(
      "4b", "Transformer on WMT17 EN-DE", 25.0, 20.0, 10,
      {
          Integer("dim", 1024, 8, 65536, "model width"),
          Integer("ffn", 4096, 8, 262144, "feed-forward width"),
          Integer("heads", 16, 1, 1024, "attention heads (a divisor of dim)"),
          Integer("layers", 6, 1, 64, "encoder layers, and as many decoder layers"),
          Number("dropout", 0.1, 0, 0.9, "dropout of the residual, attention and feed-forward paths"),
          Integer("batchTokens", 8192, 16, 1e7, "padded tokens per worker per micro-batch"),
          Number("learningRate", 1.976e-3, 0, 1, "Adam's peak learning rate"),
          Integer("lrWarmupSteps", 1000, 0, 1e7, "updates of linear warm-up from 0, then 1/sqrt decay"),
          Number("beta1", 0.9, 0, 1, "Adam beta1"),
          Number("beta2", 0.98, 0, 1, "Adam beta2"),
          Number("epsilon", 1e-9, 0, 1, "Adam epsilon"),
          Integer("maxLength", 80, 2, 1024, "tokens a training sentence may have on either side; longer pairs are left out"),
          Integer("testMaxLength", 80, 2, 1024, "the same for test pairs"),
          Number("lossScale", 128, 1, 1e9, "fp16: the initial loss scale (MLBench 4b: 2^7)"),
          Integer("lossScaleWindow", 2000, 1, 1e9, "fp16: clean updates before the scale doubles"),
          Integer("beam", 4, 1, 64, "beam width of the BLEU evaluation's decoding (1: greedy)"),
      });
}

// CARAML's computer-vision benchmark: ResNet-50 v1.5 on ImageNet-shaped data, synthetic (for
// images/s and images/Wh) or an ImageNet-layout folder of JPEGs. The recipe is the SGD one of
// MLPerf's ResNet reference (runner/tasks/imagenet_classification.h): learningRate is one
// worker's batch's share of 0.1 per 256 images, linear warm-up, polynomial decay, label
// smoothing; the goal is MLPerf's 75.9% top-1.
// A task whose recipe has a schedule of its own instead of the shared recipe's (MLBench's plateau
// decay): the plateau's hyperparameters gone, learningRate described as the schedule reads it.
void ReplaceSchedule(TaskDef* task, const std::string& learning_rate) {
  std::erase_if(task->hyperparameters, [](const HyperparameterDef& h) { return h.name.starts_with("plateau"); });
  for (HyperparameterDef& h : task->hyperparameters) {
    if (h.name == "learningRate") h.description = learning_rate;
  }
}

TaskDef ResNet50Task(std::vector<HyperparameterDef> recipe) {
  TaskDef task = TrainingTask("resnet50", "ResNet-50 v1.5 on ImageNet", "CARAML ResNet-50; MLPerf's recipe", 0.759,
                              0.70, 41, std::move(recipe));
  task.dataset_sources = {"synthetic", "path"};
  task.reference_epoch_samples = 1281167;
  // MLPerf's polynomial schedule instead.
  ReplaceSchedule(&task, "one worker's batch's rate (0.1 per 256 images); the peak is k times it");
  const std::vector<HyperparameterDef> own = {
      {"lrWarmupEpochs", ParamType::kNumber, 5, 0, 1000, {}, "epochs of linear warm-up from 0 to k x learningRate"},
      {"lrDecayPower", ParamType::kNumber, 2, 0, 10, {}, "then (1 - progress)^power down to lrEnd at maxEpochs"},
      {"lrEnd", ParamType::kNumber, 0.0001, 0, 100, {}, "the rate the decay ends at (MLPerf's closed rules: 0.0001)"},
      {"labelSmoothing", ParamType::kNumber, 0.1, 0, 1, {}, "cross-entropy label smoothing"},
      {"classes", ParamType::kInteger, 1000, 2, 100000, {}, "classes of the model's head; a folder may hold fewer"},
      {"imageSize", ParamType::kInteger, 224, 32, 1024, {}, "side of the square crops trained and evaluated on"},
      {"evalSamples", ParamType::kInteger, 0, 0, 1e9, {}, "evaluate on the first N validation images (0: all)"},
      {"dataThreads", ParamType::kInteger, 2, 1, 256, {}, "JPEG decoding threads per worker"},
      {"augment", ParamType::kBoolean, true, std::nullopt, std::nullopt, {},
       "random resized crop and flip of training JPEGs"},
  };
  task.hyperparameters.insert(task.hyperparameters.end(), own.begin(), own.end());
  return task;
}

// MLPerf HPC's CosmoFlow (runner/tasks/cosmoflow.h): the reference's 3D CNN regressing four
// cosmological parameters, its SGD recipe (a batch of 4 a worker; learningRate 0.001 for a
// global batch of 64, scaled linearly to the global batch after a warm-up of 4 epochs, x0.25
// from epoch 32 and x0.125 from 64) and its goal, a mean absolute error of 0.124, on synthetic
// universes whose statistics depend on the parameters (runner/data/cosmo_universes.h), or on the
// reference's preprocessed TFRecords under a data folder (source path; runner/data/cosmo_records.h).
TaskDef CosmoFlowTask(std::vector<HyperparameterDef> recipe) {
  TaskDef task = TrainingTask("cosmoflow", "CosmoFlow 3D CNN on dark-matter universes", "MLPerf HPC CosmoFlow", 0.124,
                              0.35, 128, std::move(recipe));
  task.goal_metric = "mae";
  task.goal_minimizes = true;
  task.goal_max = 10;
  task.dataset_sources = {"synthetic", "path"};
  ReplaceSchedule(&task, "the rate at epoch 0, for a global batch of lrBaseBatch");  // the reference's step decay
  for (HyperparameterDef& h : task.hyperparameters) {
    if (h.name == "trainSamples") {
      h.description = "training universes: generated (0: 1024), or the first of the data folder's train/ (0: all)";
    }
  }
  const std::vector<HyperparameterDef> own = {
      // runner/models/cosmoflow.cc defines the presets; cosmoflow_test checks both lists agree.
      Text("model", "reference", {"reference", "small", "tiny"},
           "reference: 4 x 128^3 volumes, 5 conv blocks from 32 filters (8,907,556 parameters); small: 64^3, 4 blocks "
           "from 16; tiny: 32^3, 3 blocks from 8"),
      Integer("lrBaseBatch", 64, 1, 1e9, "the global batch learningRate is for: the peak is learningRate x global / it"),
      Integer("lrWarmupEpochs", 4, 0, 100000, "epochs of linear rise from learningRate to the peak"),
      Integer("lrDecay1Epoch", 32, 0, 1e9, "from this epoch the rate is the peak x lrDecay1Factor (0: no boundary)"),
      Number("lrDecay1Factor", 0.25, 0, 1, "the first boundary's factor of the peak"),
      Integer("lrDecay2Epoch", 64, 0, 1e9, "from this epoch the rate is the peak x lrDecay2Factor (0: no boundary)"),
      Number("lrDecay2Factor", 0.125, 0, 1, "the second boundary's factor of the peak"),
      Number("dropout", 0.5, 0, 1, "dropout after each hidden dense layer"),
      Integer("evalSamples", 256, 1, 1e9, "validation universes: generated, or the first of the data folder's validation/"),
      Integer("universeSeed", 2019, 0, 2147483647, "source synthetic: the data set's seed, the same universes for every run"),
  };
  task.hyperparameters.insert(task.hyperparameters.end(), own.begin(), own.end());
  return task;
}

std::vector<TaskDef> BuildCatalog() {
  std::vector<TaskDef> tasks;

  tasks.push_back(AllreduceTask());

  // The synchronous-SGD recipe every training task shares; each sets its own values.
  auto sgd_recipe = [](int64_t batch, double lr, double momentum, bool nesterov, double weight_decay) {
    return std::vector<HyperparameterDef>{
        {"batchSize", ParamType::kInteger, batch, 1, 65536, {}, "samples per worker per micro-batch"},
        {"gradientAccumulation", ParamType::kInteger, 1, 1, 65536, {},
         "micro-batches per optimizer step (MLBench's update_freq): gradients summed, one all-reduce a step"},
        {"learningRate", ParamType::kNumber, lr, 0, 100, {}, "base rate, scaled linearly to k times over log2(k) epochs"},
        {"momentum", ParamType::kNumber, momentum, 0, 1, {}, "SGD momentum"},
        {"nesterov", ParamType::kBoolean, nesterov, std::nullopt, std::nullopt, {}, "Nesterov momentum"},
        {"weightDecay", ParamType::kNumber, weight_decay, 0, 1, {}, "L2 weight decay"},
        {"plateauFactor", ParamType::kNumber, 0.1, 0, 1, {}, "learning-rate factor on a validation-loss plateau"},
        {"plateauPatience", ParamType::kInteger, 2, 1, 1000, {}, "epochs without a better validation loss"},
        {"seed", ParamType::kInteger, 42, 0, 2147483647, {}, "initialisation, shuffling and augmentation"},
        {"warmupSteps", ParamType::kInteger, 20, 0, 1000000, {}, "steps left out of the throughput window"},
        {"trainSamples", ParamType::kInteger, 0, 0, 1e9, {}, "use only the first N training samples (0: all)"},
        Text("precision", "auto", {"auto", "fp32", "bf16", "fp16"},
             "autocast type of the forward pass; auto: bf16 on GPUs, fp32 on CPUs; fp16 scales the loss"),
        GradientSyncDef(),
        BucketMibDef(),
        ZeroStageDef(2),
    };
  };

  const HyperparameterDef augment = {"augment", ParamType::kBoolean, true, std::nullopt, std::nullopt, {},
                                     "random crop and flip (CIFAR only)"};

  // MLBench task 1a: ResNet-20 (He et al. 2015, CIFAR variant) on CIFAR-10.
  tasks.push_back(TrainingTask("1a", "ResNet-20 on CIFAR-10", "MLBench task 1a", 0.80, 0.70, 164,
                               sgd_recipe(128, 0.02, 0.9, true, 1e-4)));
  tasks.back().hyperparameters.push_back(augment);

  // A small CNN on the real Fashion-MNIST, from Debian's dataset-fashion-mnist: time to
  // accuracy measured for real on a 2-core machine in about a minute.
  tasks.push_back(TrainingTask("fmnist", "Small CNN on Fashion-MNIST", "ergobench", 0.85, 0.80, 10,
                               sgd_recipe(64, 0.05, 0.9, true, 5e-4)));
  tasks.back().hyperparameters.push_back(augment);
  tasks.back().default_dataset_path = "/usr/share/datasets/fashion-mnist";

  tasks.push_back(ResNet50Task(sgd_recipe(32, 0.0125, 0.9, false, 5e-5)));

  // MLBench task 2a: L2-regularised logistic regression on epsilon (libsvm format).
  std::vector<HyperparameterDef> logreg = sgd_recipe(128, 4.0, 0.0, false, 2.5e-6);
  logreg.push_back({"trainFile", ParamType::kString, "epsilon_normalized", std::nullopt, std::nullopt, {},
                    "training file under dataset.path"});
  logreg.push_back({"testFile", ParamType::kString, "epsilon_normalized.t", std::nullopt, std::nullopt, {},
                    "test file under dataset.path"});
  logreg.push_back({"features", ParamType::kInteger, 2000, 1, 1e8, {}, "feature count"});
  tasks.push_back(TrainingTask("2a", "Logistic regression on epsilon", "MLBench task 2a", 0.89, 0.80, 20,
                               std::move(logreg)));

  tasks.push_back(GptTask());
  tasks.push_back(GnmtTranslationTask());
  tasks.push_back(TransformerTranslationTask());
  tasks.push_back(CosmoFlowTask(sgd_recipe(4, 0.001, 0.9, false, 0)));

  return tasks;
}

}  // namespace

const HyperparameterDef* TaskDef::FindHyperparameter(std::string_view name) const {
  for (const HyperparameterDef& h : hyperparameters) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

const std::vector<TaskDef>& TaskCatalog() {
  static const std::vector<TaskDef> catalog = BuildCatalog();
  return catalog;
}

const TaskDef* FindTask(std::string_view id) {
  for (const TaskDef& task : TaskCatalog()) {
    if (task.id == id) return &task;
  }
  return nullptr;
}

int64_t ReferenceEpochSamples(std::string_view task) {
  const TaskDef* def = FindTask(task);
  return def != nullptr ? def->reference_epoch_samples : 0;
}

std::string KnownTaskIds() {
  std::string ids;
  for (const TaskDef& task : TaskCatalog()) {
    if (!ids.empty()) ids += ", ";
    ids += task.id;
  }
  return ids;
}

const char* ParamTypeName(ParamType type) {
  switch (type) {
    case ParamType::kInteger: return "an integer";
    case ParamType::kNumber: return "a number";
    case ParamType::kString: return "a string";
    case ParamType::kBoolean: return "true or false";
  }
  return "a value";
}

}  // namespace ergobench
