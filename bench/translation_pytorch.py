"""Translation training throughput with PyTorch's Python API: the same models as ergobench's
tasks 4a and 4b, written as runner/models/gnmt.h and transformer.h build them, on the same
libtorch, trained as their recipes train them: GNMT (a packed bidirectional LSTM, Bahdanau
attention with tf.contrib.seq2seq's normalisation, residual LSTMs, dropout 0.2), Adam
(0.9, 0.999), the label-smoothed loss per sentence and the gradients clipped at norm 5; the
Transformer (pre-LayerNorm, attention without bias, sinusoidal positions, a tied embedding,
dropout 0.1), Adam (0.9, 0.98, 1e-9), the loss per target token. Every sentence has `length`
tokens on either side, as bench/translation_vs_pytorch.sh writes ergobench's corpus, so both
train on batches of one shape. Prints target tokens (each sentence's and its <\\s>) per second
over the steps after the warm-up.

Run with Debian's interpreter, which is where python3-torch lives:
    /usr/bin/python3 bench/translation_pytorch.py --model gnmt --threads 2 --hidden 256 \\
        --layers 4 --vocab 1004 --length 30 --batch 64 --steps 20 --warmup 3
On a GPU (bench/gpu/run.sh): --device cuda --precision fp16 --json, which also reports the
GPU's energy (NVML) and the caching allocator's memory peaks.
"""

import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from amp_energy import Energy, Precision, memory_peaks

PAD, BEGIN, END = 0, 2, 3


def uniform_lstm(input_size, hidden, bidirectional=False):
    lstm = nn.LSTM(input_size, hidden, batch_first=True, bidirectional=bidirectional)
    for name, parameter in lstm.named_parameters():
        nn.init.zeros_(parameter) if name.startswith("bias_hh") else nn.init.uniform_(parameter, -0.1, 0.1)
    return lstm


class BahdanauAttention(nn.Module):
    def __init__(self, units):
        super().__init__()
        self.linear_q = nn.Linear(units, units, bias=False)
        self.linear_k = nn.Linear(units, units, bias=False)
        self.linear_att = nn.Parameter(torch.empty(units).uniform_(-0.1, 0.1))
        self.normalize_scalar = nn.Parameter(torch.full((1,), 1 / math.sqrt(units)))
        self.normalize_bias = nn.Parameter(torch.zeros(units))

    def forward(self, query, keys, projected_keys, padding):
        summed = self.linear_q(query).unsqueeze(2) + projected_keys.unsqueeze(1) + self.normalize_bias
        direction = self.linear_att / self.linear_att.norm() * self.normalize_scalar
        scores = torch.tanh(summed).matmul(direction).masked_fill(padding.unsqueeze(1), float("-inf"))
        weights = scores.softmax(-1)
        return weights @ keys


class Gnmt(nn.Module):
    def __init__(self, vocab, hidden, layers, dropout=0.2):
        super().__init__()
        self.dropout = dropout
        self.embedding = nn.Embedding(vocab, hidden, padding_idx=PAD)
        nn.init.uniform_(self.embedding.weight, -0.1, 0.1)
        self.encoder_bidirectional = uniform_lstm(hidden, hidden, bidirectional=True)
        self.encoder = nn.ModuleList([uniform_lstm(2 * hidden, hidden)] +
                                     [uniform_lstm(hidden, hidden) for _ in range(layers - 2)])
        self.decoder_first = uniform_lstm(hidden, hidden)
        self.attention = BahdanauAttention(hidden)
        self.decoder = nn.ModuleList(uniform_lstm(2 * hidden, hidden) for _ in range(layers - 1))
        self.classifier = nn.Linear(hidden, vocab)
        nn.init.uniform_(self.classifier.weight, -0.1, 0.1)
        nn.init.uniform_(self.classifier.bias, -0.1, 0.1)

    def drop(self, x):
        return F.dropout(x, self.dropout, self.training)

    def forward(self, source, target_input):
        padding = source.eq(PAD)
        lengths = padding.logical_not().sum(1).cpu()
        packed = pack_padded_sequence(self.drop(self.embedding(source)), lengths, batch_first=True, enforce_sorted=False)
        x, _ = pad_packed_sequence(self.encoder_bidirectional(packed)[0], batch_first=True,
                                   total_length=source.shape[1])
        for i, lstm in enumerate(self.encoder):
            y = lstm(self.drop(x))[0]
            x = y if i == 0 else y + x
        projected = self.attention.linear_k(x)
        first = self.decoder_first(self.drop(self.embedding(target_input)))[0]
        context = self.attention(first, x, projected, padding)
        y = first
        for i, lstm in enumerate(self.decoder):
            out = lstm(self.drop(torch.cat((y, context), 2)))[0]
            y = out if i == 0 else out + y
        return self.classifier(y)


def xavier_linear(inputs, outputs, bias):
    linear = nn.Linear(inputs, outputs, bias=bias)
    nn.init.xavier_uniform_(linear.weight)
    if bias:
        nn.init.zeros_(linear.bias)
    return linear


class Attention(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.heads, self.dropout = heads, dropout
        self.q, self.k, self.v, self.out = (xavier_linear(dim, dim, False) for _ in range(4))

    def forward(self, query, memory, padding, causal):
        b, t, d = query.shape
        s, hd = memory.shape[1], d // self.heads
        split = lambda x, n: x.view(b, n, self.heads, hd).transpose(1, 2)  # noqa: E731
        scores = (split(self.q(query), t) / math.sqrt(hd)) @ split(self.k(memory), s).transpose(-2, -1)
        scores = scores.masked_fill(padding.view(b, 1, 1, s), float("-inf"))
        if causal:
            scores = scores.masked_fill(torch.ones(t, s, dtype=torch.bool, device=scores.device).triu(1), float("-inf"))
        weights = F.dropout(scores.softmax(-1), self.dropout, self.training)
        return self.out((weights @ split(self.v(memory), s)).transpose(1, 2).reshape(b, t, d))


class TransformerLayer(nn.Module):
    def __init__(self, dim, ffn, heads, dropout, decoder):
        super().__init__()
        self.dropout, self.decoder = dropout, decoder
        self.self_norm = nn.LayerNorm(dim)
        self.self_attention = Attention(dim, heads, dropout)
        if decoder:
            self.cross_norm = nn.LayerNorm(dim)
            self.cross_attention = Attention(dim, heads, dropout)
        self.ffn_norm = nn.LayerNorm(dim)
        self.fc1, self.fc2 = xavier_linear(dim, ffn, True), xavier_linear(ffn, dim, True)

    def forward(self, x, padding, memory=None, memory_padding=None):
        drop = lambda y: F.dropout(y, self.dropout, self.training)  # noqa: E731
        normed = self.self_norm(x)
        x = x + drop(self.self_attention(normed, normed, padding, self.decoder))
        if self.decoder:
            x = x + drop(self.cross_attention(self.cross_norm(x), memory, memory_padding, False))
        return x + drop(self.fc2(drop(F.relu(self.fc1(self.ffn_norm(x))))))


class Transformer(nn.Module):
    def __init__(self, vocab, dim, ffn, heads, layers, max_positions, dropout=0.1):
        super().__init__()
        self.dim, self.dropout = dim, dropout
        self.embedding = nn.Embedding(vocab, dim)
        nn.init.normal_(self.embedding.weight, 0, dim ** -0.5)
        with torch.no_grad():
            self.embedding.weight[PAD].zero_()
        half = dim // 2
        frequencies = torch.exp(torch.arange(half, dtype=torch.float) * -(math.log(10000.0) / (half - 1)))
        angles = torch.arange(max_positions + 1, dtype=torch.float).unsqueeze(1) * frequencies.unsqueeze(0)
        positions = torch.cat((angles.sin(), angles.cos()), 1)
        positions[0].zero_()
        self.register_buffer("positions", positions)
        self.encoder = nn.ModuleList(TransformerLayer(dim, ffn, heads, dropout, False) for _ in range(layers))
        self.decoder = nn.ModuleList(TransformerLayer(dim, ffn, heads, dropout, True) for _ in range(layers))
        self.encoder_norm, self.decoder_norm = nn.LayerNorm(dim), nn.LayerNorm(dim)

    def embed(self, tokens):
        real = tokens.ne(PAD)
        x = self.embedding(tokens) * math.sqrt(self.dim) + self.positions[real.long().cumsum(1) * real]
        return F.dropout(x, self.dropout, self.training)

    def forward(self, source, target_input):
        source_padding = source.eq(PAD)
        x = self.embed(source)
        for layer in self.encoder:
            x = layer(x, source_padding)
        memory = self.encoder_norm(x)
        y = self.embed(target_input)
        for layer in self.decoder:
            y = layer(y, target_input.eq(PAD), memory, source_padding)
        return self.decoder_norm(y) @ self.embedding.weight.t()


def label_smoothed_loss_sum(logits, targets, smoothing=0.1):
    log_probs = logits.reshape(-1, logits.shape[-1]).float().log_softmax(-1)
    flat = targets.reshape(-1)
    nll = -log_probs.gather(1, flat.unsqueeze(1)).squeeze(1)
    return ((1 - smoothing) * nll + smoothing * -log_probs.mean(1)).masked_fill(flat.eq(PAD), 0).sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=("gnmt", "transformer"), required=True)
    for name, default in (("threads", 2), ("hidden", 256), ("ffn", 1024), ("heads", 4), ("layers", 4),
                          ("vocab", 1004), ("length", 30), ("batch", 64), ("steps", 20), ("warmup", 3)):
        parser.add_argument(f"--{name}", type=int, default=default)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32", choices=("fp32", "bf16", "fp16"))
    parser.add_argument("--json", action="store_true", help="print target tokens/s, J/token and memory as JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(42)
    device = torch.device(args.device)
    if args.model == "gnmt":
        model = Gnmt(args.vocab, args.hidden, args.layers).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=2e-3, betas=(0.9, 0.999), eps=1e-8)
    else:
        model = Transformer(args.vocab, args.hidden, args.ffn, args.heads, args.layers, args.length + 2).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    model.train()
    precision = Precision(device, args.precision)
    energy = Energy(device)
    elapsed = 0.0
    for step in range(args.warmup + args.steps):
        start = time.perf_counter()
        # Random words (ids past the 4 special ones), then <\s>; the decoder's input from <s>.
        words = torch.randint(4, args.vocab, (args.batch, args.length))
        end = torch.full((args.batch, 1), END)
        source, target_output = torch.cat((words, end), 1), torch.cat((words.flip(1), end), 1)
        target_input = torch.cat((torch.full((args.batch, 1), BEGIN), words.flip(1)), 1)
        source, target_input, target_output = (t.to(device) for t in (source, target_input, target_output))
        with precision.forward():
            logits = model(source, target_input)
        loss = label_smoothed_loss_sum(logits, target_output)
        # 4a: per sentence; 4b: per target token.
        loss = loss / (args.batch if args.model == "gnmt" else args.batch * (args.length + 1))
        optimizer.zero_grad()
        precision.backward_and_step(loss, optimizer, clip=5.0 if args.model == "gnmt" else None,
                                    parameters=model.parameters())
        loss.item()  # ergobench reads every step's loss
        if step >= args.warmup:
            elapsed += time.perf_counter() - start
    tokens_per_second = args.steps * args.batch * (args.length + 1) / elapsed
    joules = energy.joules()
    if args.json:
        total = (args.warmup + args.steps) * args.batch * (args.length + 1)
        print(json.dumps({"targetTokensPerSecond": tokens_per_second,
                          "joulesPerToken": joules / total if joules else None, **memory_peaks(device)}))
    else:
        print(tokens_per_second)


if __name__ == "__main__":
    main()
