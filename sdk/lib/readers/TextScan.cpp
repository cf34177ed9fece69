//===- TextScan.cpp - Encoding check shared by the text parsers -----------===//
#include "readers/TextScan.h"

#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <cstring>

using namespace llvm;

namespace gestell {
namespace scan {

namespace {
constexpr uint64_t High = 0x8080808080808080ull;
constexpr uint64_t Ones = 0x0101010101010101ull;

/// True when any byte of W is >= 0x80 or zero.
inline bool suspicious(uint64_t W) {
  return ((W | ((W - Ones) & ~W)) & High) != 0;
}
} // namespace

Error checkText(StringRef Buffer, StringRef Path, char Counted, size_t &Count) {
  const char *B = Buffer.data();
  size_t N = Buffer.size();
  size_t I = 0;
  const uint64_t Pattern = Ones * static_cast<unsigned char>(Counted);
  constexpr uint64_t Low7 = 0x7f7f7f7f7f7f7f7full;
  size_t Matches = 0; // a local, so the loop keeps it in a register
  for (;;) {
    // Fast path: eight ASCII, non-NUL bytes at a time. Bytes equal to
    // Counted become zero in X; a byte's high bit in T is set when the byte
    // of X is not zero (no carry crosses bytes), so the clear high bits of T
    // count the matches.
    while (I + 8 <= N) {
      uint64_t W;
      std::memcpy(&W, B + I, 8);
      if (suspicious(W))
        break;
      uint64_t X = W ^ Pattern;
      uint64_t T = ((X & Low7) + Low7) | X;
      Matches += (((~T & High) >> 7) * Ones) >> 56; // sum of the 0/1 bytes
      I += 8;
    }
    if (I >= N) {
      Count = Matches;
      return Error::success();
    }
    unsigned char C = static_cast<unsigned char>(B[I]);
    if (C == 0) {
      LineCol LC = lineColOf(Buffer, I);
      return inputError(Path, LC.Line, LC.Column,
                        "binary data (NUL byte) where text was expected");
    }
    if (C < 0x80) {
      Matches += C == static_cast<unsigned char>(Counted);
      ++I;
      continue;
    }
    unsigned Len = getNumBytesForUTF8(C);
    const UTF8 *S = reinterpret_cast<const UTF8 *>(B + I);
    if (Len == 0 || Len > 4 || I + Len > N ||
        !isLegalUTF8Sequence(S, S + Len)) {
      LineCol LC = lineColOf(Buffer, I);
      static const char Digits[] = "0123456789abcdef";
      char Hex[] = {'0', 'x', Digits[C >> 4], Digits[C & 15], 0};
      return inputError(Path, LC.Line, LC.Column,
                        Twine("invalid UTF-8 (byte ") + Hex +
                            ") where text was expected");
    }
    I += Len;
  }
}

} // namespace scan
} // namespace gestell
