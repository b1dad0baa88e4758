#pragma once
// The schedules, each host's part of them, step for step as fedgrid's algorithms run them
// (algorithms/fedavg.cpp, algorithms/fedseq.cpp, algorithms/fedasync.cpp).
#include <vector>

#include "bench/emulator/host.hpp"
#include "bench/emulator/training.hpp"

namespace fedgrid::emulator {

// fedavg: each round, send the global model to every hospital at once, take every upload,
//   average them (sample-weighted); the round ends when the average is done.
// fedseq: each round, for each hospital in id order: send, take its upload; the round ends
//   with the last upload.
// fedasync: send the initial model to every hospital at once, then take pushes in order of
//   arrival and mix each (a round = one mix, ending when it is made); after each mix but the
//   last, send the new model to the hospital just mixed. After the last, take and discard
//   the pushes still to come and tell every hospital to stop.
void run_server(Host& host, std::vector<float> model);

// FedAsync's server mixes once before the start, so that round 1's mix finds its heap grown.
void warm_up_fedasync(const std::vector<float>& model);

// fedavg, fedseq: each round, take the server's model, train, upload.
// fedasync: take the server's next model, train, push, until the server says stop.
// fedcross: the model hops hospital to hospital, no server. Round 1's first hospital starts
//   from the initial model (no transfer); every other hop is a transfer, including the last
//   hospital's to the first of the next round (counted toward that round). A round ends when
//   its last hospital has trained.
void run_hospital(Host& host, LocalTrainer& trainer, std::vector<float> model);

}  // namespace fedgrid::emulator
