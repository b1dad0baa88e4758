#!/usr/bin/python3
"""Writes the binary seed inputs of fuzz/corpus/idx and fuzz/corpus/npz from real
Fashion-MNIST images (Debian's dataset-fashion-mnist): a few images, so the seeds stay small.
The idx seeds are the four IDX files in one input, as fuzz/fuzz_files.hpp's split_parts reads it."""
import gzip
import io
import struct
import sys
from pathlib import Path

import numpy as np

SOURCE = Path("/usr/share/datasets/fashion-mnist")
OUT = Path(__file__).resolve().parent / "corpus"


def idx_images(name, count):
    raw = gzip.open(SOURCE / name).read()
    _, n, rows, cols = struct.unpack(">IIII", raw[:16])
    return np.frombuffer(raw[16:16 + count * rows * cols], np.uint8).reshape(count, rows, cols)


def idx_labels(name, count):
    return np.frombuffer(gzip.open(SOURCE / name).read()[8:8 + count], np.uint8)


def idx_file_images(images):
    return struct.pack(">IIII", 2051, *images.shape) + images.tobytes()


def idx_file_labels(labels):
    return struct.pack(">II", 2049, len(labels)) + labels.tobytes()


def parts(files):
    out = b""
    for f in files[:-1]:
        out += struct.pack("<I", len(f)) + f
    return out + files[-1]


def main():
    train_x, train_y = idx_images("train-images-idx3-ubyte.gz", 4), idx_labels("train-labels-idx1-ubyte.gz", 4)
    test_x, test_y = idx_images("t10k-images-idx3-ubyte.gz", 2), idx_labels("t10k-labels-idx1-ubyte.gz", 2)
    files = [idx_file_images(train_x), idx_file_labels(train_y), idx_file_images(test_x), idx_file_labels(test_y)]
    (OUT / "idx").mkdir(parents=True, exist_ok=True)
    (OUT / "idx" / "fashion_mnist_4_2.bin").write_bytes(parts(files))
    # The same images cut to 8x8: a smaller input for the fuzzer to mutate.
    small = [idx_file_images(train_x[:, 10:18, 10:18].copy()), idx_file_labels(train_y),
             idx_file_images(test_x[:, 10:18, 10:18].copy()), idx_file_labels(test_y)]
    (OUT / "idx" / "fashion_mnist_8x8.bin").write_bytes(parts(small))
    # gzip as the Debian package ships it (zlib reads both).
    (OUT / "idx" / "fashion_mnist_8x8_gzip.bin").write_bytes(parts([gzip.compress(f, mtime=0) for f in small]))

    (OUT / "npz").mkdir(parents=True, exist_ok=True)
    arrays = {"train_images": train_x[:, 10:18, 10:18], "train_labels": train_y.reshape(-1, 1).astype(np.uint8),
              "val_images": test_x[:1, 10:18, 10:18], "val_labels": test_y[:1].reshape(-1, 1),
              "test_images": test_x[:, 10:18, 10:18], "test_labels": test_y.reshape(-1, 1).astype(np.int64)}
    for name, save in (("grey_8x8_stored.npz", np.savez), ("grey_8x8_deflated.npz", np.savez_compressed)):
        buf = io.BytesIO()
        save(buf, **arrays)
        (OUT / "npz" / name).write_bytes(buf.getvalue())
    colour = dict(arrays, train_images=np.stack([arrays["train_images"]] * 3, axis=-1),
                  test_images=np.stack([arrays["test_images"]] * 3, axis=-1))
    buf = io.BytesIO()
    np.savez(buf, **colour)
    (OUT / "npz" / "colour_8x8_stored.npz").write_bytes(buf.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
