"""Prints bench/gpu/run.sh's figures side by side: ergobench-runner against PyTorch-Python on
the same GPU, from the result files the runner wrote and the peers' JSON lines.
Usage: python3 bench/gpu/summarize.py OUT_DIR"""

import json
import os
import sys

# ResNet-50 v1.5's training FLOPs per 224x224 image: 4.09 GMAC forward = 8.2 GFLOP, and the
# backward pass twice that; MFU divides by the GPU's dense bf16/fp16 peak (runner/device_peaks.cc).
RESNET50_TRAINING_FLOPS = 3 * 2 * 4.09e9
PEAKS = {"H200": 989.5e12, "H100": 989.5e12}  # SXM parts, dense bf16 = fp16


def load(out, name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fmt(value, spec="{:.1f}"):
    return "n/a" if value is None else spec.format(value)


def phases(result):
    """The step's phases as shares of their sum: where ergobench's time went."""
    seconds = result.get("phaseSeconds", {})
    total = sum(seconds.values()) or 1
    return ", ".join(f"{name} {100 * s / total:.0f}%" for name, s in seconds.items() if s / total >= 0.005)


def per_sample_energy(result, samples):
    return result["energyJoules"] / samples if result.get("energyJoules") and samples else None


def memory(ours, theirs):
    """Peak GPU tensor and reserved bytes, ergobench's (its results' memory) beside the peer's."""
    m = (ours or {}).get("memory") or {}
    gib = lambda b: fmt(b / 2**30 if b else None, "{:.2f}")  # noqa: E731
    return (f"memory peak/reserved GiB: ergobench {gib(m.get('peakTensorBytes'))}/{gib(m.get('peakReservedBytes'))}, "
            f"PyTorch {gib((theirs or {}).get('peakTensorBytes'))}/{gib((theirs or {}).get('peakReservedBytes'))}")


def learned(out):
    for task in ("4b", "4a"):
        r = load(out, f"learn-{task}.json")
        if not r:
            continue
        t = r.get("translation") or {}
        print(f"{task} learns the synthetic pair (fp16, beam {t.get('beam')}): {r.get('status')}, goal reached "
              f"{r.get('goalReached')}, BLEU {fmt(t.get('bleu'), '{:.2f}')} after {r.get('epochs')} epochs, "
              f"time to accuracy {fmt(r.get('timeToAccuracySeconds'), '{:.1f}')} s, skipped updates "
              f"{r.get('skippedUpdates')}; {r.get('error') or ''}")


def translation_speed(out):
    names = {"4a": "GNMT 1024 wide, 4 layers, 128 pairs", "4b": "Transformer-big, 264 pairs (8,184 tokens)"}
    for task, name in names.items():
        ours, theirs = load(out, f"speed-{task}.json"), load(out, f"speed-{task}-pytorch.json")
        if ours and ours.get("status") == "Succeeded" and theirs:
            t = ours["translation"]["targetTokensPerSecond"]
            print(f"{task} {name}, fp16: ergobench {fmt(t, '{:.0f}')} target tokens/s ({phases(ours)}), "
                  f"PyTorch {fmt(theirs['targetTokensPerSecond'], '{:.0f}')}, ratio {t / theirs['targetTokensPerSecond']:.3f}; "
                  f"{memory(ours, theirs)}")
        elif ours or theirs:
            print(f"{task} {name}: ergobench {ours.get('error') if ours else 'no result'}; PyTorch {theirs}")


def zero(out):
    flat, sharded = load(out, "zero-flat.json"), load(out, "zero-sharded.json")
    if not (flat or sharded):
        return
    for name, r in (("flat", flat), ("ZeRO-1", sharded)):
        if not r or r.get("status") != "Succeeded":
            print(f"GPT-2 small bf16 {name}: {r.get('error') if r else 'no result'}")
            continue
        lm, m = r["languageModel"], r.get("memory") or {}
        print(f"GPT-2 small bf16 {name}: eval loss {fmt(lm.get('evalLoss'), '{:.4f}')}, "
              f"{fmt(lm['tokensPerSecond'], '{:.0f}')} tokens/s, digest {r.get('parameterDigest', '')[:16]}, "
              f"optimizer state {fmt((m.get('optimizerStateBytes') or 0) / 2**20)} MiB, "
              f"tensor peak {fmt((m.get('peakTensorBytes') or 0) / 2**30, '{:.2f}')} GiB")


def main():
    out = sys.argv[1]
    gpu_csv = os.path.join(out, "gpu.csv")
    gpu = open(gpu_csv).read().splitlines()[-1] if os.path.exists(gpu_csv) else "?"
    peak = next((p for name, p in PEAKS.items() if name in gpu), None)
    print(f"GPU: {gpu}")

    learned(out)
    translation_speed(out)
    zero(out)
    sweep = load(out, "allreduce-nccl.json")
    if sweep and sweep.get("status") == "Succeeded":
        ar = sweep["allreduce"]
        watts = sweep["energyJoules"] / sweep["runSeconds"] if sweep.get("energyJoules") else None
        print(f"0a over NCCL, k=1: {ar['sizes']} sizes of {ar['dtype']}, latency {fmt(1e6 * ar['minLatencySeconds'])} us, "
              f"NVML {fmt(sweep.get('energyJoules'))} J over {fmt(sweep['runSeconds'], '{:.2f}')} s ({fmt(watts)} W); "
              f"{sweep['environment'].get('collectiveLibrary')}")
    elif sweep:
        print(f"0a over NCCL: {sweep.get('error')}")

    for precision in ("bf16", "fp16"):
        ours, theirs = load(out, f"resnet50-{precision}.json"), load(out, f"resnet50-{precision}-pytorch.json")
        if ours and ours.get("status") == "Succeeded" and theirs:
            ips = ours["samplesPerSecond"]
            mfu = 100 * ips * RESNET50_TRAINING_FLOPS / peak if peak else None
            print(f"ResNet-50 {precision}: ergobench {fmt(ips)} images/s (MFU {fmt(mfu)}%, "
                  f"{fmt(per_sample_energy(ours, ours.get('samples')), '{:.3f}')} J/image; {phases(ours)}), "
                  f"PyTorch {fmt(theirs['imagesPerSecond'])} images/s ({fmt(theirs.get('joulesPerImage'), '{:.3f}')} J/image), "
                  f"ratio {ips / theirs['imagesPerSecond']:.3f}; {memory(ours, theirs)}")
        elif ours or theirs:
            print(f"ResNet-50 {precision}: ergobench {ours.get('error') if ours else 'no result'}; PyTorch {theirs}")

        ours, theirs = load(out, f"gpt2-{precision}.json"), load(out, f"gpt2-{precision}-pytorch.json")
        if ours and ours.get("status") == "Succeeded" and theirs:
            lm = ours["languageModel"]
            print(f"GPT-2 small {precision}: ergobench {fmt(lm['tokensPerSecond'], '{:.0f}')} tokens/s "
                  f"(MFU {fmt(100 * lm['mfu'] if lm.get('mfu') else None)}%, "
                  f"{fmt(per_sample_energy(ours, lm.get('tokens')), '{:.5f}')} J/token; {phases(ours)}), "
                  f"PyTorch {fmt(theirs['tokensPerSecond'], '{:.0f}')} tokens/s "
                  f"({fmt(theirs.get('joulesPerToken'), '{:.5f}')} J/token), "
                  f"ratio {lm['tokensPerSecond'] / theirs['tokensPerSecond']:.3f}; {memory(ours, theirs)}")
        elif ours or theirs:
            print(f"GPT-2 {precision}: ergobench {ours.get('error') if ours else 'no result'}; PyTorch {theirs}")


if __name__ == "__main__":
    main()
