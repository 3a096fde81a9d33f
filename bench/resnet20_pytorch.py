"""ResNet-20 training throughput with PyTorch's Python API: the same model (option A
shortcuts, 269,722 parameters), recipe (batch 128, SGD with Nesterov momentum 0.9, weight
decay 1e-4, cross entropy) and data path (uint8 CIFAR-shaped images, normalised, randomly
cropped from a 4-pixel padding and flipped) as ergobench's task 1a, on the same libtorch.
Prints images per second over the steps after the warm-up.

With --ranks K it trains data-parallel as users would pick instead of ergobench: K processes,
DistributedDataParallel over gloo (its default 25 MiB buckets, all-reduced during backward),
each rank its own data and --threads threads; it prints the images per second of all ranks.

Run with Debian's interpreter, which is where python3-torch lives:
    /usr/bin/python3 bench/resnet20_pytorch.py --threads 2 --steps 25 --warmup 5
    /usr/bin/python3 bench/resnet20_pytorch.py --ranks 2 --threads 1 --steps 25 --warmup 5
"""

import argparse
import socket
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.stride = stride
        self.pad = planes - in_planes

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x
        if self.stride != 1 or self.pad:
            shortcut = x[:, :, ::self.stride, ::self.stride]
            shortcut = F.pad(shortcut, (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))
        return F.relu(out + shortcut)


class ResNet20(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.stem_bn = nn.BatchNorm2d(16)
        blocks, in_planes = [], 16
        for planes in (16, 32, 64):
            for block in range(3):
                blocks.append(BasicBlock(in_planes, planes, 2 if block == 0 and planes != 16 else 1))
                in_planes = planes
        self.stages = nn.Sequential(*blocks)
        self.head = nn.Linear(64, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = F.relu(self.stem_bn(self.stem(x)))
        x = self.stages(x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
STD = torch.tensor([0.2470, 0.2435, 0.2616]).view(1, 3, 1, 1)


def batch(images, labels, indices, generator):
    """As torchvision's RandomCrop(32, padding=4) and RandomHorizontalFlip, then Normalize."""
    padded = F.pad(images[indices], (4, 4, 4, 4))  # uint8 zeros, as torchvision pads the image
    offsets = torch.randint(0, 9, (len(indices), 2), generator=generator)
    flips = torch.randint(0, 2, (len(indices),), generator=generator)
    out = torch.empty(len(indices), 3, 32, 32)
    for i in range(len(indices)):
        dy, dx = offsets[i].tolist()
        crop = padded[i, :, dy:dy + 32, dx:dx + 32]
        out[i] = crop.flip(2) if flips[i] else crop
    return out.div_(255).sub_(MEAN).div_(STD), labels[indices]


def train(rank, args, port, results):
    """One rank's timed steps; under --ranks, a DDP rank. Puts its images per second in results."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    generator = torch.Generator().manual_seed(42 + rank)
    count = args.batch * args.steps
    images = torch.randint(0, 256, (count, 3, 32, 32), dtype=torch.uint8, generator=generator)
    labels = torch.randint(0, 10, (count,), generator=generator)
    model = ResNet20()
    assert sum(p.numel() for p in model.parameters()) == 269722
    if args.ranks > 1:
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=args.ranks)
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, nesterov=True, weight_decay=1e-4)
    order = torch.randperm(count, generator=generator)
    model.train()
    timed, samples = 0.0, 0
    for step in range(args.steps):
        start = time.perf_counter()
        x, y = batch(images, labels, order[step * args.batch:(step + 1) * args.batch], generator)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()
        if step >= args.warmup:
            timed += time.perf_counter() - start
            samples += args.batch
    results[rank] = samples / timed
    if args.ranks > 1:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=128, help="per rank")
    parser.add_argument("--ranks", type=int, default=1)
    args = parser.parse_args()
    if args.ranks == 1:
        results = {}
        train(0, args, 0, results)
    else:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        results = mp.Manager().dict()
        mp.spawn(train, args=(args, port, results), nprocs=args.ranks)
    print(f"{sum(results.values()):.1f}")  # as ergobench sums its ranks' throughput


if __name__ == "__main__":
    main()
