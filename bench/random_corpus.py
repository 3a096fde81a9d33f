"""Writes a corpus in the WMT16 text layout (runner/data/parallel_corpus.h) of random sentences
for the translation benchmarks: a vocabulary of `words` words w0, w1, ..., `pairs` training
pairs and one test pair, every sentence `length` words on either side, so that every batch has
one shape. Seeded: the same arguments write the same files.
Usage: python3 bench/random_corpus.py FOLDER PAIRS LENGTH WORDS"""

import os
import random
import sys


def main():
    folder, pairs, length, vocabulary = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(folder, exist_ok=True)
    words = [f"w{i}" for i in range(vocabulary)]
    with open(f"{folder}/vocab", "w") as f:
        f.write("\n".join(words) + "\n")
    rng = random.Random(42)
    for prefix, count in (("train", pairs), ("test", 1)):
        for language in ("en", "de"):
            with open(f"{folder}/{prefix}.{language}", "w") as f:
                f.writelines(" ".join(rng.choice(words) for _ in range(length)) + "\n" for _ in range(count))


if __name__ == "__main__":
    main()
