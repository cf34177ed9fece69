//===- NameTable.cpp - The seed of the TTGIR parser's name tables ---------===//
#include "readers/ttgir/NameTable.h"

#include <chrono>
#include <random>

namespace gestell::ttgir {

uint64_t nameTableSeed() {
  // Once per process; the tables are never iterated, so nothing the parser
  // gives depends on it. random_device may throw where the system has no
  // source of entropy: the clock and where this process's stack is (ASLR)
  // are still nothing a file can know.
  static const uint64_t Seed = [] {
    int Local;
    uint64_t S =
        uint64_t(reinterpret_cast<uintptr_t>(&Local)) ^
        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) *
            0x9E3779B97F4A7C15ull;
    try {
      std::random_device R;
      S ^= uint64_t(R()) << 32 | R();
    } catch (...) {
    }
    return S;
  }();
  return Seed;
}

} // namespace gestell::ttgir
