#pragma once
// Dataset sources. Errors (missing file, bad magic, truncated data) throw data::DataError
// naming the file, so the command line can exit with code 2.
#include <stdexcept>
#include <string>

#include "data/dataset.hpp"

namespace fedgrid::data {

class DataError : public std::runtime_error {
 public:
  DataError(const std::string& file, const std::string& what)
      : std::runtime_error(file + ": " + what), file_(file) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// What a reader does with the pixels: keeps them (normalised, for training), reads every byte
// and keeps none (`fedgrid validate` of a run that trains: the files are checked as the run
// reads them, no tensors built), or reads only their headers (timing-only runs, which need the
// shape and the labels). A dataset read without its pixels has empty `images`.
enum class Pixels { Keep, Check, Skip };

// Where Debian's dataset-fashion-mnist package puts the gzip IDX files.
inline const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Reads train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and
// t10k-labels-idx1-ubyte.gz (gzip or plain) from `dir`. Pixels scaled to [0,1] then
// normalised with the train split's mean and std.
// Cheap presence check of the four files (for `fedgrid validate`); throws DataError.
void check_idx_dir(const std::string& dir);
TrainTest load_idx_dir(const std::string& dir, const std::string& name, int num_classes = 10,
                       Pixels pixels = Pixels::Keep);

// MedMNIST's .npz (numpy.savez_compressed of {train,val,test}_{images,labels}): the train
// arrays are the pool, the test arrays the global test set (the val arrays are not used).
// Grey (N,H,W) or colour (N,H,W,C) uint8 images; classes = largest train label + 1.
void check_npz(const std::string& path);
// The images arrays are read (decompressed) whatever `pixels` says: a zip member has no
// shape before its data.
TrainTest load_npz(const std::string& path, const std::string& name, Pixels pixels = Pixels::Keep);

struct SyntheticOptions {
  int64_t train_samples = 2000;
  int64_t test_samples = 500;
  int num_classes = 10;
  ImageShape shape{1, 28, 28};
  double noise = 1.0;  // std of the per-pixel Gaussian noise around each class prototype
  uint64_t seed = 1;
};

// Class-conditional Gaussian images: each class has a fixed random prototype (smooth
// blobs), a sample is its prototype plus noise. Learnable by every model, fast to make.
TrainTest make_synthetic(const SyntheticOptions& options);

}  // namespace fedgrid::data
