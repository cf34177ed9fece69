//===- TextScan.cpp - Encoding check shared by the text parsers -----------===//
#include "TextScan.h"

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

Error checkText(StringRef Buffer, StringRef Path) {
  const char *B = Buffer.data();
  size_t N = Buffer.size();
  size_t I = 0;
  for (;;) {
    // Fast path: eight ASCII, non-NUL bytes at a time.
    while (I + 8 <= N) {
      uint64_t W;
      std::memcpy(&W, B + I, 8);
      if (suspicious(W))
        break;
      I += 8;
    }
    if (I >= N)
      return Error::success();
    unsigned char C = static_cast<unsigned char>(B[I]);
    if (C == 0) {
      LineCol LC = lineColOf(Buffer, I);
      return inputError(Path, LC.Line, LC.Column,
                        "binary data (NUL byte) where text was expected");
    }
    if (C < 0x80) {
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
