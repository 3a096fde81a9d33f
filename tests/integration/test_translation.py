"""Task 4b end to end on the synthetic language pair: a small Transformer learns the pair's
grammar to a BLEU goal that a word-for-word gloss (10.63) cannot reach, at k=1 and at k=2
(the ranks ending with identical parameters), and bad settings fail naming the field."""

import json
import os
import unittest

from harness import ErgobenchTestCase

# A model small enough to learn the pair in about 30 s on 2 cores, greedy decoding for BLEU.
SMALL = {"dim": 64, "ffn": 128, "heads": 4, "layers": 2, "batchTokens": 1024, "gradientAccumulation": 1,
         "learningRate": 0.003, "lrWarmupSteps": 50, "syntheticSentences": 4000, "syntheticTestSentences": 200,
         "beam": 1}
GOAL = 50.0


def translation_yaml(name, workers=1, max_epochs=16, **hyperparameters):
    hp = dict(SMALL, **hyperparameters)
    return "\n".join([
        "apiVersion: ergobench.io/v1alpha1", "kind: Benchmark", f"metadata: {{name: {name}}}", "spec:",
        "  task: 4b", f"  workers: {workers}", "  backend: gloo", "  dataset: {source: synthetic}",
        f"  maxEpochs: {max_epochs}", f"  goal: {{metric: bleu, target: {GOAL}}}",
        "  hyperparameters: " + json.dumps(hp)]) + "\n"


class TranslationTest(ErgobenchTestCase):
    def run_ok(self, name, text):
        path = self.write(name + ".yaml", text)
        run = self.ergobench("run", "-q", path, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        return self.read_json(os.path.join(self.results(name), "benchmark.json"))["status"]["results"]

    def bleu_by_epoch(self, name):
        with open(os.path.join(self.results(name), "rank-0.mllog")) as f:
            events = [json.loads(line[len(":::MLLOG "):]) for line in f if line.startswith(":::MLLOG ")]
        return [e["value"] for e in events if e["key"] == "eval_accuracy"]

    def test_one_and_two_ranks_learn_the_pair_to_the_bleu_goal(self):
        tokens_per_epoch = {}
        for workers in (1, 2):
            name = f"translate-k{workers}"
            with self.subTest(workers=workers):
                results = self.run_ok(name, translation_yaml(name, workers=workers))
                bleu = self.bleu_by_epoch(name)
                # An untrained model scores next to nothing; the goal is five times the gloss.
                self.assertLess(bleu[0], 1.0, bleu)
                self.assertTrue(results["goalReached"], bleu)
                self.assertGreaterEqual(bleu[-1], GOAL)
                self.assertLess(max(bleu[:-1]), GOAL)  # the run stopped at the first evaluation past it
                self.assertLessEqual(results["timeToAccuracySeconds"], results["runSeconds"])
                translation = results["translation"]
                self.assertAlmostEqual(translation["bleu"], bleu[-1], places=9)  # the status's is the last evaluation's
                self.assertEqual((translation["precision"], translation["beam"]), ("fp32", 1))
                self.assertNotIn("lossScale", results)  # fp32 scales nothing
                tokens_per_epoch[workers] = translation["targetTokens"] / results["epochs"]
                if workers == 2:
                    ranks = [self.rank_result(name, r)[0] for r in range(2)]
                    self.assertEqual(ranks[0]["parameterDigest"], ranks[1]["parameterDigest"])
                    self.assertGreater(results["communicationRatio"], 0)
        # Every epoch goes through the whole corpus, split over the ranks and summed in the status;
        # two ranks take whole steps of one batch each, so at most one batch (1024 tokens) is left out.
        self.assertLessEqual(abs(tokens_per_epoch[1] - tokens_per_epoch[2]), SMALL["batchTokens"], tokens_per_epoch)

    def test_bad_settings_name_the_field(self):
        for name, hp, message in (
                ("bad-heads", {"heads": 5}, "spec.hyperparameters.heads: 5 heads do not divide dim 64"),
                ("bad-fp16", {"precision": "fp16"}, "precision: fp16 autocast needs a CUDA device"),
                ("bad-tokens", {"batchTokens": 100000, "syntheticSentences": 16, "gradientAccumulation": 2},
                 "spec.hyperparameters.batchTokens: 16 training pairs make 1 batches of 100000 tokens, fewer than 2 "
                 "a step for each of 1 workers")):
            with self.subTest(name=name):
                run = self.ergobench("run", "-q", self.write(name + ".yaml", translation_yaml(name, **hp)))
                self.assertNotEqual(0, run.returncode, run.stdout + run.stderr)
                self.assertIn(message, run.stdout + run.stderr)
        path = self.write("bad-path.yaml", translation_yaml("bad-path").replace("{source: synthetic}",
                                                                             "{source: path, path: /nonexistent}"))
        run = self.ergobench("run", "-q", path)
        self.assertNotEqual(0, run.returncode)
        self.assertIn("/nonexistent/vocab.bpe.32000: cannot be read", run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
