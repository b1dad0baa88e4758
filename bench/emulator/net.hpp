#pragma once
// TCP on loopback, the emulation's wire: listening, connecting, whole reads and writes.
// Every descriptor is close-on-exec; the launcher clears the flag on the ones a child keeps.
#include <cstddef>

namespace fedgrid::emulator {

// A socket listening on 127.0.0.1 at a port the kernel picks; `port` receives it.
int listen_loopback(int& port);
// A connection to 127.0.0.1:port, Nagle off (paced chunks leave when written).
int connect_loopback(int port);
// Writes all `size` bytes (no SIGPIPE); throws std::runtime_error on failure.
void write_all(int fd, const void* data, size_t size);
// Reads exactly `size` bytes. Returns false on end of stream before the first byte; throws on
// an error or on end of stream after part of them.
bool read_all(int fd, void* data, size_t size);

}  // namespace fedgrid::emulator
