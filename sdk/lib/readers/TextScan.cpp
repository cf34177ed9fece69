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

Error checkText(StringRef Buffer, StringRef Path, char Counted, size_t &Count) {
  const char *B = Buffer.data();
  size_t N = Buffer.size();
  size_t I = 0;
  const unsigned char Want = static_cast<unsigned char>(Counted);
  size_t Matches = 0; // a local, so the loop keeps it in a register
  for (;;) {
    // Fast path: 64 bytes a block, written so that the compiler vectorizes
    // it. A block is plain when no byte is NUL or >= 0x80; its Counted
    // bytes are summed.
    size_t Stop = N; // where the byte-by-byte path below hands back
    while (I + 64 <= N) {
      unsigned char Odd = 0, Hits = 0;
      for (unsigned K = 0; K < 64; ++K) {
        unsigned char C = static_cast<unsigned char>(B[I + K]);
        Odd |= (C & 0x80) | (C == 0);
        Hits += C == Want;
      }
      if (Odd) {
        Stop = I + 64;
        break;
      }
      Matches += Hits;
      I += 64;
    }
    // The block that is not plain (or the tail), byte by byte.
    while (I < Stop) {
      unsigned char C = static_cast<unsigned char>(B[I]);
      if (C == 0) {
        LineCol LC = lineColOf(Buffer, I);
        return inputError(Path, LC.Line, LC.Column,
                          "binary data (NUL byte) where text was expected");
      }
      if (C < 0x80) {
        Matches += C == Want;
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
    if (I >= N) {
      Count = Matches;
      return Error::success();
    }
  }
}

} // namespace scan
} // namespace gestell
