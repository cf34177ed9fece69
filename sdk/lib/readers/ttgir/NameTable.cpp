//===- NameTable.cpp - The seed of the TTGIR parser's name tables ---------===//
#include "readers/ttgir/NameTable.h"

#include <random>

namespace gestell::ttgir {

uint64_t nameTableSeed() {
  // Once per process; the tables are never iterated, so nothing the parser
  // gives depends on it.
  static const uint64_t Seed = [] {
    std::random_device R;
    return (uint64_t(R()) << 32 | R()) ^ 0x9E3779B97F4A7C15ull;
  }();
  return Seed;
}

} // namespace gestell::ttgir
