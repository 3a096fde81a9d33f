"""ResNet-50 v1.5 training throughput with PyTorch's Python API: the same model as ergobench's
task resnet50 (torchvision's resnet50 written out: strides on the 3x3 convolutions, 1x1
projection shortcuts, 25,557,032 parameters, zero-initialised last batch norms), recipe (SGD,
momentum 0.9, weight decay 5e-5, cross entropy with label smoothing 0.1) and synthetic data
(a pool of 64 normalised 224x224 images cycled, as the task's synthetic source), on the same
libtorch with the same threads. Prints images per second over the steps after the warm-up.

Run with Debian's interpreter, which is where python3-torch lives:
    /usr/bin/python3 bench/resnet50_pytorch.py --threads 2 --steps 10 --warmup 2
On a GPU (bench/gpu/run.sh): --device cuda --precision bf16 --json, which also reports the
GPU's energy per image from NVML over all steps, as ergobench's joulesPerSample.
"""

import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from amp_energy import Energy, Precision, memory_peaks


class Bottleneck(nn.Module):
    def __init__(self, in_channels, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, 4 * planes, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(4 * planes)
        nn.init.zeros_(self.bn3.weight)
        self.downsample = None
        if stride != 1 or in_channels != 4 * planes:
            self.downsample = nn.Sequential(nn.Conv2d(in_channels, 4 * planes, 1, stride, bias=False),
                                            nn.BatchNorm2d(4 * planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return F.relu(out + (self.downsample(x) if self.downsample is not None else x))


class ResNet50(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.stem_bn = nn.BatchNorm2d(64)
        layers, in_channels = [], 64
        for stage, blocks in enumerate((3, 4, 6, 3)):
            planes = 64 << stage
            for block in range(blocks):
                layers.append(Bottleneck(in_channels, planes, 2 if block == 0 and stage > 0 else 1))
                in_channels = 4 * planes
        self.layers = nn.Sequential(*layers)
        self.head = nn.Linear(2048, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.stem_bn(self.stem(x))), 3, 2, 1)
        x = self.layers(x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32", choices=("fp32", "bf16", "fp16"))
    parser.add_argument("--json", action="store_true", help="print images/s and J/image as JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    device = torch.device(args.device)
    model = ResNet50()
    assert sum(p.numel() for p in model.parameters()) == 25557032
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.0125, momentum=0.9, weight_decay=5e-5)
    pool = torch.rand(64, 3, 224, 224) * 4 - 2
    labels = torch.randint(0, 1000, (args.batch * args.steps,))
    model.train()
    precision = Precision(device, args.precision)
    energy = Energy(device)
    timed, samples = 0.0, 0
    for step in range(args.steps):
        start = time.perf_counter()
        index = torch.arange(step * args.batch, (step + 1) * args.batch)
        x = pool[index % 64].contiguous().to(device)
        with precision.forward():
            outputs = model(x)
        loss = F.cross_entropy(outputs.float(), labels[index].to(device), label_smoothing=0.1)
        optimizer.zero_grad()
        precision.backward_and_step(loss, optimizer)
        loss.item()
        if step >= args.warmup:
            timed += time.perf_counter() - start
            samples += args.batch
    joules = energy.joules()
    if args.json:
        print(json.dumps({"imagesPerSecond": samples / timed,
                          "joulesPerImage": joules / (args.steps * args.batch) if joules else None,
                          **memory_peaks(device)}))
    else:
        print(f"{samples / timed:.2f}")


if __name__ == "__main__":
    main()
