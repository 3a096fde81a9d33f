"""GPT training throughput with PyTorch's Python API: the same model as ergobench's task
gpt (GPT-2 blocks: learned positions, pre-LayerNorm, causal self-attention written out as
matmul + mask + softmax, a tanh-GELU MLP 4x wide, tied output layer), the same AdamW step
with decoupled weight decay on the matrices, global-norm clipping at 1.0, random tokens,
fp32, on the same libtorch. Prints tokens per second over the steps after the warm-up.

Run with Debian's interpreter, which is where python3-torch lives:
    /usr/bin/python3 bench/gpt_pytorch.py --threads 2 --layers 4 --hidden 256 --heads 8 \
        --sequence 256 --vocab 257 --batch 4 --steps 20 --warmup 3
"""

import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

from amp_energy import Energy, Precision, memory_peaks


class Attention(nn.Module):
    def __init__(self, hidden, heads, sequence, layers):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        nn.init.normal_(self.qkv.weight, std=0.02)
        nn.init.normal_(self.proj.weight, std=0.02 / math.sqrt(2 * layers))
        nn.init.zeros_(self.qkv.bias)
        nn.init.zeros_(self.proj.bias)
        self.register_buffer("future", torch.ones(sequence, sequence, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, x):
        b, t, h = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(h // self.heads)
        scores = scores.masked_fill(self.future[:t, :t], float("-inf"))
        return self.proj((scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, h))


class Block(nn.Module):
    def __init__(self, hidden, heads, sequence, layers):
        super().__init__()
        self.ln1 = nn.LayerNorm(hidden)
        self.attention = Attention(hidden, heads, sequence, layers)
        self.ln2 = nn.LayerNorm(hidden)
        self.fc = nn.Linear(hidden, 4 * hidden)
        self.fc_proj = nn.Linear(4 * hidden, hidden)
        nn.init.normal_(self.fc.weight, std=0.02)
        nn.init.normal_(self.fc_proj.weight, std=0.02 / math.sqrt(2 * layers))
        nn.init.zeros_(self.fc.bias)
        nn.init.zeros_(self.fc_proj.bias)

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.fc_proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Gpt(nn.Module):
    def __init__(self, layers, hidden, heads, sequence, vocab):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(sequence, hidden)
        nn.init.normal_(self.wte.weight, std=0.02)
        nn.init.normal_(self.wpe.weight, std=0.02)
        self.blocks = nn.ModuleList(Block(hidden, heads, sequence, layers) for _ in range(layers))
        self.ln_f = nn.LayerNorm(hidden)

    def forward(self, tokens):
        x = self.wte(tokens) + self.wpe(torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()


def main():
    parser = argparse.ArgumentParser()
    for name, default in (("threads", 2), ("layers", 4), ("hidden", 256), ("heads", 8), ("sequence", 256),
                          ("vocab", 257), ("batch", 4), ("steps", 20), ("warmup", 3)):
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32", choices=("fp32", "bf16", "fp16"))
    parser.add_argument("--json", action="store_true", help="print tokens/s and J/token as JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    device = torch.device(args.device)
    model = Gpt(args.layers, args.hidden, args.heads, args.sequence, args.vocab).to(device)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                                  lr=6e-4, betas=(0.9, 0.95), eps=1e-8)
    precision = Precision(device, args.precision)
    energy = Energy(device)
    elapsed = 0.0
    for step in range(args.warmup + args.steps):
        start = time.perf_counter()
        # Fresh tokens each step, drawn on the host and copied, as ergobench's synthetic source.
        tokens = torch.randint(args.vocab, (args.batch, args.sequence + 1)).to(device)
        with precision.forward():
            logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        precision.backward_and_step(loss, optimizer, clip=1.0, parameters=model.parameters())
        loss.item()  # ergobench reads every step's loss, which waits for the step's work
        if step >= args.warmup:
            elapsed += time.perf_counter() - start
    joules = energy.joules()
    if args.json:
        total = (args.warmup + args.steps) * args.batch * args.sequence
        print(json.dumps({"tokensPerSecond": args.steps * args.batch * args.sequence / elapsed,
                          "joulesPerToken": joules / total if joules else None, **memory_peaks(device)}))
    else:
        print(args.steps * args.batch * args.sequence / elapsed)


if __name__ == "__main__":
    main()
