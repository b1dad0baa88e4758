#!/usr/bin/python3
# FedAvg written the way the seed papers' public code writes it (shaoxiongji/federated-learning,
# FedProx, UniFed's PyTorch back-ends): a Dataset with per-sample __getitem__, a DataLoader per
# hospital per round, hospitals trained one after the other in a Python loop, state_dicts
# averaged by sample count. The yardstick for bench/python_vs_fedgrid.sh.
#
# Same work as fedgrid's quickstart run with data.partition.scheme=iid: the McMahan CNN
# (models/nets.cpp, 582,026 parameters, torch's default initialisation), iid partition of the
# 60,000 training images over H hospitals, each hospital trains on the train share of its data
# (data.split train 0.7; val/test shares unused here as in fedgrid's global-only evaluation),
# SGD lr 0.01 momentum 0.9, batch 32, 1 local epoch, global model scored on the 10,000 test
# images after the last round. Pixels go through ToTensor + Normalize(train mean, train std),
# as fedgrid's reader does.
#
# usage: bench/python_fedavg.py [--hospitals 8] [--rounds 3] [--seed 42] [--threads 2 (0: torch default)] [-v]
# prints: python: H hospitals, R rounds, wall X s, accuracy A
# -v also prints each round's wall time to stderr.
import time

T_START = time.time()  # wall covers the imports too, like timing the whole process

import argparse
import copy
import gzip
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Subset

DATA_DIR = "/usr/share/datasets/fashion-mnist"
# scenarios/quickstart.yaml
LR, MOMENTUM, BATCH_SIZE, LOCAL_EPOCHS, TRAIN_FRACTION = 0.01, 0.9, 32, 1, 0.7
# Fashion-MNIST training-set pixel mean/std: fedgrid normalises its inputs with them
# (data/idx_reader.cpp); left at [0, 1], SGD at lr 0.01 ends ~5 points lower after 3 rounds.
MEAN, STD = 0.2860, 0.3530


class FashionMNIST(Dataset):
    """Reads the gz IDX files itself (no torchvision)."""

    def __init__(self, root, train=True):
        prefix = "train" if train else "t10k"
        with gzip.open(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz"), "rb") as f:
            self.images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 28, 28)
        with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz"), "rb") as f:
            self.labels = np.frombuffer(f.read(), np.uint8, offset=8).astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        # transforms.ToTensor() (1 x 28 x 28 float in [0, 1]) then transforms.Normalize(MEAN, STD)
        img = torch.from_numpy(self.images[idx].copy()).unsqueeze(0).float().div(255)
        return img.sub(MEAN).div(STD), int(self.labels[idx])


class CNNFashionMnist(nn.Module):
    """McMahan et al.'s CNN, as fedgrid's cnn (models/nets.cpp FedAvgCnn)."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5)
        self.conv2 = nn.Conv2d(32, 64, 5)
        self.fc1 = nn.Linear(64 * 4 * 4, 512)
        self.fc2 = nn.Linear(512, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(x.size(0), -1)
        return self.fc2(F.relu(self.fc1(x)))


def iid_partition(dataset, num_users):
    """As in the FedAvg repos' mnist_iid: equal random shards without replacement."""
    num_items = len(dataset) // num_users
    all_idxs, dict_users = list(range(len(dataset))), {}
    for i in range(num_users):
        dict_users[i] = set(np.random.choice(all_idxs, num_items, replace=False))
        all_idxs = list(set(all_idxs) - dict_users[i])
    return dict_users


class LocalUpdate:
    def __init__(self, dataset, idxs):
        idxs = list(idxs)
        np.random.shuffle(idxs)
        self.idxs_train = idxs[: int(round(TRAIN_FRACTION * len(idxs)))]  # the rest: local val/test
        self.loader = DataLoader(Subset(dataset, self.idxs_train), batch_size=BATCH_SIZE, shuffle=True)

    def train(self, net):
        net.train()
        optimizer = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
        loss_func = nn.CrossEntropyLoss()
        epoch_loss = []
        for _ in range(LOCAL_EPOCHS):
            batch_loss = []
            for images, labels in self.loader:
                optimizer.zero_grad()
                loss = loss_func(net(images), labels)
                loss.backward()
                optimizer.step()
                batch_loss.append(loss.item())
            epoch_loss.append(sum(batch_loss) / len(batch_loss))
        return net.state_dict(), sum(epoch_loss) / len(epoch_loss)


def fed_avg(w, n):
    total = float(sum(n))
    w_avg = copy.deepcopy(w[0])
    for k in w_avg.keys():
        w_avg[k] = sum(w[i][k] * (n[i] / total) for i in range(len(w)))
    return w_avg


def test_img(net, dataset):
    net.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in DataLoader(dataset, batch_size=1000):
            correct += net(images).argmax(1).eq(labels).sum().item()
    return correct / len(dataset)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hospitals", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    if args.threads > 0:  # 0: torch's own default, as an unmodified research script runs
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    dataset_train = FashionMNIST(DATA_DIR, train=True)
    dataset_test = FashionMNIST(DATA_DIR, train=False)
    dict_users = iid_partition(dataset_train, args.hospitals)
    locals_ = [LocalUpdate(dataset_train, dict_users[h]) for h in range(args.hospitals)]

    net_glob = CNNFashionMnist()
    n_params = sum(p.numel() for p in net_glob.parameters())
    assert n_params == 582026, n_params

    for rnd in range(1, args.rounds + 1):
        t0 = time.time()
        w_locals, n_locals, loss_locals = [], [], []
        for h in range(args.hospitals):
            w, loss = locals_[h].train(copy.deepcopy(net_glob))
            w_locals.append(copy.deepcopy(w))
            n_locals.append(len(locals_[h].idxs_train))
            loss_locals.append(loss)
        net_glob.load_state_dict(fed_avg(w_locals, n_locals))
        if args.verbose:
            print(f"round {rnd}: {time.time() - t0:.2f} s, average train loss "
                  f"{sum(loss_locals) / len(loss_locals):.4f}", file=sys.stderr)

    accuracy = test_img(net_glob, dataset_test)
    wall = time.time() - T_START
    print(f"python: {args.hospitals} hospitals, {args.rounds} rounds, wall {wall:.2f} s, accuracy {accuracy:.4f}")


if __name__ == "__main__":
    main()
