#!/usr/bin/python3
# FedAvg as the fastest plain Python PyTorch loop a user would write: the whole dataset as one
# normalised tensor, mini-batches taken by indexing it directly (no Dataset, no DataLoader),
# hospitals trained one after the other, flat parameter vectors averaged by sample count, the
# global model scored on the 10,000 test images after every round. The yardstick for
# bench/python_direct_vs_fedgrid.sh (bench/python_fedavg.py is the seed papers' style instead).
#
# Same work as fedgrid's quickstart with data.partition.scheme=iid and 8 medium hospitals: the
# McMahan CNN (582,026 parameters), an iid partition of the 60,000 training images (equal random
# shares: the same kind as fedgrid's, not the same draw), each hospital's train share 0.7, SGD lr
# 0.01 momentum 0.9, batch 32, 1 local epoch, inputs normalised with the train-set mean/std.
#
# usage: bench/python_fedavg_direct.py [--hospitals 8] [--rounds 3] [--seed 42] [--threads 2] [-v]
# prints: python-direct: H hospitals, R rounds, wall X s, accuracy A
import time

T_START = time.time()  # wall covers the imports too, like timing the whole process

import argparse
import gzip
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_fedavg import CNNFashionMnist  # noqa: E402  (the same McMahan CNN, models/nets.cpp)

DATA_DIR = "/usr/share/datasets/fashion-mnist"
LR, MOMENTUM, BATCH_SIZE, LOCAL_EPOCHS, TRAIN_FRACTION = 0.01, 0.9, 32, 1, 0.7
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST train-set pixel mean/std, as fedgrid's reader


def load(prefix):
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"), "rb") as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"), "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)
    x = torch.from_numpy(images.astype(np.float32)).div_(255).sub_(MEAN).div_(STD)
    return x, torch.from_numpy(labels)


def train(net, x, y, idx, generator):
    net.train()
    optimizer = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    for _ in range(LOCAL_EPOCHS):
        order = idx[torch.randperm(len(idx), generator=generator)]
        for start in range(0, len(order), BATCH_SIZE):
            batch = order[start:start + BATCH_SIZE]
            optimizer.zero_grad()
            F.cross_entropy(net(x.index_select(0, batch)), y.index_select(0, batch)).backward()
            optimizer.step()


def accuracy(net, x, y):
    net.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(y), 1000):
            correct += net(x[start:start + 1000]).argmax(1).eq(y[start:start + 1000]).sum().item()
    return correct / len(y)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hospitals", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)

    x_train, y_train = load("train")
    x_test, y_test = load("t10k")
    shares = torch.randperm(len(y_train), generator=generator).chunk(args.hospitals)
    train_idx = [s[: int(round(TRAIN_FRACTION * len(s)))] for s in shares]
    sizes = torch.tensor([float(len(i)) for i in train_idx])

    net = CNNFashionMnist()
    assert sum(p.numel() for p in net.parameters()) == 582026
    acc = 0.0
    for rnd in range(1, args.rounds + 1):
        t0 = time.time()
        start = nn.utils.parameters_to_vector(net.parameters()).detach().clone()
        total = torch.zeros_like(start)
        for h in range(args.hospitals):
            # a copy: vector_to_parameters makes the parameters views of the vector it is given
            nn.utils.vector_to_parameters(start.clone(), net.parameters())
            train(net, x_train, y_train, train_idx[h], generator)
            total += nn.utils.parameters_to_vector(net.parameters()).detach() * (sizes[h] / sizes.sum())
        nn.utils.vector_to_parameters(total, net.parameters())
        acc = accuracy(net, x_test, y_test)
        if args.verbose:
            print(f"round {rnd}: {time.time() - t0:.2f} s, accuracy {acc:.4f}", file=sys.stderr)
    wall = time.time() - T_START
    print(f"python-direct: {args.hospitals} hospitals, {args.rounds} rounds, wall {wall:.2f} s, accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
