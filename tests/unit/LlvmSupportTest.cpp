//===- LlvmSupportTest.cpp - The LLVM Support that libgestell carries ------===//
//
// libgestell links LLVM Support without its Compression, CRC and Z3Solver
// objects (so libz, libzstd and libz3 are not NEEDED); sdk/lib/llvm/
// NoCompression.cpp stands in for the first two. Its CRC-32 and JamCRC give
// the standard check values, and a decompression is an error, not a crash
// (a sanitizer build links libLLVM.so, which has the real ones: the same
// answers).
//
//===----------------------------------------------------------------------===//
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace llvm;

namespace {

ArrayRef<uint8_t> bytes(StringRef S) { return arrayRefFromStringRef(S); }

TEST(LlvmSupport, Crc32CheckValues) {
  EXPECT_EQ(crc32(bytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(crc32(bytes("")), 0u);
  // Running CRC: in two pieces the same as in one.
  EXPECT_EQ(crc32(crc32(bytes("1234")), bytes("56789")), 0xCBF43926u);
  JamCRC J;
  J.update(bytes("123456789"));
  EXPECT_EQ(J.getCRC(), 0x340BC6D9u);
}

TEST(LlvmSupport, DecompressingIsAnError) {
  const uint8_t Garbage[] = {1, 2, 3, 4, 5, 6, 7, 8};
  SmallVector<uint8_t, 0> Out;
  for (auto F : {compression::Format::Zlib, compression::Format::Zstd}) {
    Error E = compression::decompress(F, Garbage, Out, 64);
    EXPECT_TRUE(bool(E));
    consumeError(std::move(E));
  }
}

} // namespace
