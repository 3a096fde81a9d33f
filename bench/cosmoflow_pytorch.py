"""CosmoFlow training throughput with PyTorch's Python API: the same network as ergobench's task
cosmoflow (runner/models/cosmoflow.h: Conv3d blocks with LeakyReLU 0.3 and max-pooling, dense
128 and 64 with dropout 0.5, tanh x 1.2, Glorot-uniform weights), recipe (MSE loss, SGD with
momentum 0.9) and data path (int16 particle counts held in memory, log1p per batch), on the
same libtorch. Prints samples per second over the steps after the warm-up.

Run with Debian's interpreter, which is where python3-torch lives:
    /usr/bin/python3 bench/cosmoflow_pytorch.py --preset tiny --threads 2 --batch 8 --steps 60 --warmup 10
With --profile N, it profiles N steps on one fixed batch after the warm-up instead (torch.profiler)
and prints each op's share of the CPU time, the ops over 2%.
"""

import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRESETS = {"reference": (128, 5, 32), "small": (64, 4, 16), "tiny": (32, 3, 8)}  # side, blocks, base filters


class CosmoFlow(nn.Module):
    def __init__(self, side, blocks, base, channels=4, dense=(128, 64), dropout=0.5, outputs=4):
        super().__init__()
        convs, width = [], channels
        for i in range(blocks):
            convs.append(nn.Conv3d(width, base << i, 3, padding=1))
            width = base << i
        self.convs = nn.ModuleList(convs)
        layers, width = [], (side >> blocks) ** 3 * width
        for d in dense:
            layers.append(nn.Linear(width, d))
            width = d
        layers.append(nn.Linear(width, outputs))
        self.dense = nn.ModuleList(layers)
        self.dropout = nn.Dropout(dropout)
        for m in self.modules():
            if isinstance(m, (nn.Conv3d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        for conv in self.convs:
            x = F.max_pool3d(F.leaky_relu(conv(x), 0.3), 2)
        x = x.flatten(1)
        for layer in self.dense[:-1]:
            x = self.dropout(F.leaky_relu(layer(x), 0.3))
        return torch.tanh(self.dense[-1](x)) * 1.2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--samples", type=int, default=256, help="universes held in memory")
    parser.add_argument("--profile", type=int, default=0, metavar="STEPS", help="profile STEPS steps instead")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    side, blocks, base = PRESETS[args.preset]
    model = CosmoFlow(side, blocks, base)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    counts = torch.poisson(torch.full((args.samples, 4, side, side, side), 8.0)).to(torch.int16)
    targets = torch.rand(args.samples, 4) * 2 - 1
    model.train()

    def step(x, y):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()

    if args.profile:
        x, y = torch.log1p(counts[:args.batch].float()), targets[:args.batch]
        for _ in range(args.warmup):
            step(x, y)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
            for _ in range(args.profile):
                step(x, y)
        # Self time: each op's own, so that the shares add up to the step.
        ops = profile.key_averages()
        total = sum(op.self_cpu_time_total for op in ops)
        print(f"{args.profile} steps of {args.preset}, batch {args.batch}, {args.threads} threads: self CPU time by op")
        for op in sorted(ops, key=lambda op: -op.self_cpu_time_total):
            if op.self_cpu_time_total >= 0.02 * total:
                print(f"  {100 * op.self_cpu_time_total / total:5.1f}%  {op.key}")
        return
    start = None
    for at in range(args.steps):
        if at == args.warmup:
            start = time.perf_counter()
        picked = torch.randint(0, args.samples, (args.batch,))
        x = torch.log1p(counts.index_select(0, picked).float())
        y = targets.index_select(0, picked)
        step(x, y)
    print(f"{(args.steps - args.warmup) * args.batch / (time.perf_counter() - start):.2f}")


if __name__ == "__main__":
    main()
