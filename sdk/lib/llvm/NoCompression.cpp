//===- NoCompression.cpp - LLVM Support's zlib/zstd parts, without them ---===//
//
// libgestell links LLVM Support in whole from Debian's static archive, which
// was built with zlib, zstd and Z3: its Compression, CRC and Z3Solver objects
// would make libz, libzstd and libz3 NEEDED (libz3 alone is a quarter of the
// start-up). gestell never compresses, and the cubin reader never reads a
// compressed section, so sdk/CMakeLists.txt leaves those three objects out
// and this file defines what LLVM Support defines when it is built without
// zlib and zstd (LLVM_ENABLE_ZLIB/ZSTD off): no format is available, and a
// decompression is an error, never a crash. CRC-32 is the table-driven one
// LLVM uses without zlib. Plugins see the same API through libgestell.so;
// llvm::CreateZ3Solver is not there.
//
//===----------------------------------------------------------------------===//
#include "llvm/Support/CRC.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"

#include <array>

using namespace llvm;
using namespace llvm::compression;

namespace {
Error unavailable(StringRef Name) {
  return createStringError(inconvertibleErrorCode(),
                           "%s decompression is not available in gestell",
                           Name.data());
}
} // namespace

bool zlib::isAvailable() { return false; }
void zlib::compress(ArrayRef<uint8_t>, SmallVectorImpl<uint8_t> &, int) {
  report_fatal_error("zlib compression is not available in gestell");
}
Error zlib::decompress(ArrayRef<uint8_t>, uint8_t *, size_t &) {
  return unavailable("zlib");
}
Error zlib::decompress(ArrayRef<uint8_t>, SmallVectorImpl<uint8_t> &, size_t) {
  return unavailable("zlib");
}

bool zstd::isAvailable() { return false; }
void zstd::compress(ArrayRef<uint8_t>, SmallVectorImpl<uint8_t> &, int, bool) {
  report_fatal_error("zstd compression is not available in gestell");
}
Error zstd::decompress(ArrayRef<uint8_t>, uint8_t *, size_t &) {
  return unavailable("zstd");
}
Error zstd::decompress(ArrayRef<uint8_t>, SmallVectorImpl<uint8_t> &, size_t) {
  return unavailable("zstd");
}

const char *compression::getReasonIfUnsupported(Format F) {
  return F == Format::Zlib ? "gestell is linked without zlib"
                           : "gestell is linked without zstd";
}

void compression::compress(Params P, ArrayRef<uint8_t> Input,
                           SmallVectorImpl<uint8_t> &Output) {
  if (P.format == Format::Zlib)
    zlib::compress(Input, Output, P.level);
  else
    zstd::compress(Input, Output, P.level, P.zstdEnableLdm);
}

Error compression::decompress(DebugCompressionType T, ArrayRef<uint8_t> Input,
                              uint8_t *Output, size_t UncompressedSize) {
  return unavailable(T == DebugCompressionType::Zlib ? "zlib" : "zstd");
}

Error compression::decompress(Format F, ArrayRef<uint8_t> Input,
                              SmallVectorImpl<uint8_t> &Output,
                              size_t UncompressedSize) {
  return unavailable(F == Format::Zlib ? "zlib" : "zstd");
}

Error compression::decompress(DebugCompressionType T, ArrayRef<uint8_t> Input,
                              SmallVectorImpl<uint8_t> &Output,
                              size_t UncompressedSize) {
  return unavailable(T == DebugCompressionType::Zlib ? "zlib" : "zstd");
}

namespace {
constexpr std::array<uint32_t, 256> crcTable() {
  std::array<uint32_t, 256> T{};
  for (uint32_t I = 0; I < 256; ++I) {
    uint32_t C = I;
    for (int K = 0; K < 8; ++K)
      C = (C & 1) ? 0xEDB88320u ^ (C >> 1) : C >> 1;
    T[I] = C;
  }
  return T;
}
constexpr std::array<uint32_t, 256> CrcTable = crcTable();
} // namespace

uint32_t llvm::crc32(uint32_t CRC, ArrayRef<uint8_t> Data) {
  CRC ^= 0xFFFFFFFFu;
  for (uint8_t Byte : Data)
    CRC = CrcTable[(CRC ^ Byte) & 0xFF] ^ (CRC >> 8);
  return CRC ^ 0xFFFFFFFFu;
}

uint32_t llvm::crc32(ArrayRef<uint8_t> Data) { return crc32(0, Data); }

void JamCRC::update(ArrayRef<uint8_t> Data) {
  CRC ^= 0xFFFFFFFFu; // undo CRC-32's init
  CRC = llvm::crc32(CRC, Data);
  CRC ^= 0xFFFFFFFFu; // undo CRC-32's final xor
}
