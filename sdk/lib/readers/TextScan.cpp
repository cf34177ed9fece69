//===- TextScan.cpp - Encoding check shared by the text parsers -----------===//
#include "readers/TextScan.h"

#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ConvertUTF.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include "readers/TextScanSimd.h"

#include <emmintrin.h>
#endif

using namespace llvm;

namespace gestell {
namespace scan {

#if defined(__SSE2__)
size_t plainBlocksSse2(const char *B, size_t N, size_t &I, char Want,
                       size_t &Matches) {
  // Four vectors a block; the per-byte hit counters (0 - matches, in 8
  // bits) are summed into Matches before they can wrap.
  size_t Stop = N;
  const __m128i Zero = _mm_setzero_si128(), WantV = _mm_set1_epi8(Want);
  for (bool Plain = true; Plain && I + 64 <= N;) {
    __m128i Acc = Zero;
    unsigned Blocks = 0;
    for (; Blocks < 63 && I + 64 <= N; ++Blocks, I += 64) {
      const __m128i *P = reinterpret_cast<const __m128i *>(B + I);
      __m128i V0 = _mm_loadu_si128(P), V1 = _mm_loadu_si128(P + 1),
              V2 = _mm_loadu_si128(P + 2), V3 = _mm_loadu_si128(P + 3);
      // NUL: the unsigned minimum of the four is 0 somewhere.
      __m128i Min = _mm_min_epu8(_mm_min_epu8(V0, V1), _mm_min_epu8(V2, V3));
      __m128i Odd =
          _mm_or_si128(_mm_or_si128(_mm_or_si128(V0, V1), _mm_or_si128(V2, V3)),
                       _mm_cmpeq_epi8(Min, Zero));
      __m128i Hit = _mm_add_epi8(
          _mm_add_epi8(_mm_cmpeq_epi8(V0, WantV), _mm_cmpeq_epi8(V1, WantV)),
          _mm_add_epi8(_mm_cmpeq_epi8(V2, WantV), _mm_cmpeq_epi8(V3, WantV)));
      if (_mm_movemask_epi8(Odd)) {
        Stop = I + 64;
        Plain = false;
        break;
      }
      Acc = _mm_sub_epi8(Acc, Hit); // at most 4 a byte a block
    }
    __m128i Sums = _mm_sad_epu8(Acc, Zero);
    Matches += size_t(_mm_cvtsi128_si32(Sums)) +
               size_t(_mm_cvtsi128_si32(_mm_unpackhi_epi64(Sums, Sums)));
  }
  return Stop;
}
#endif

Error checkText(StringRef Buffer, StringRef Path, char Counted, size_t &Count) {
  const char *B = Buffer.data();
  size_t N = Buffer.size();
  size_t I = 0;
  const unsigned char Want = static_cast<unsigned char>(Counted);
  size_t Matches = 0; // a local, so the loop keeps it in a register
  for (;;) {
    // Fast path: 64 bytes a block. A block is plain when no byte is NUL or
    // >= 0x80; its Counted bytes are summed.
    size_t Stop = N; // where the byte-by-byte path below hands back
#if defined(__SSE2__)
    Stop = plainBlocks(B, N, I, Counted, Matches);
#else
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
#endif
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

#if defined(__SSE2__)
template <size_t N>
bool findWordsSse2(StringRef Text, ArrayRef<StringRef> Words, size_t &I) {
  size_t MaxLen = 0;
  __m128i First[N], Last[N];
  for (size_t K = 0; K < N; ++K) {
    MaxLen = std::max(MaxLen, Words[K].size());
    First[K] = _mm_set1_epi8(Words[K].front());
    Last[K] = _mm_set1_epi8(Words[K].back());
  }
  const char *S = Text.data();
  auto Load = [&](size_t At) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(S + At));
  };
  // Every load, and the compare of every candidate, ends inside Text.
  for (; I + MaxLen + 31 <= Text.size(); I += 32) {
    __m128i Hit[2 * N], Any = _mm_setzero_si128();
    // Unrolled: -O2 keeps these loops of two and N turns as loops.
#pragma GCC unroll 2
    for (size_t Half = 0; Half < 2; ++Half) {
      __m128i Head = Load(I + 16 * Half);
#pragma GCC unroll 2
      for (size_t K = 0; K < N; ++K) {
        __m128i Tail = Load(I + 16 * Half + Words[K].size() - 1);
        Hit[2 * K + Half] = _mm_and_si128(_mm_cmpeq_epi8(Head, First[K]),
                                          _mm_cmpeq_epi8(Tail, Last[K]));
        Any = _mm_or_si128(Any, Hit[2 * K + Half]);
      }
    }
    if (!_mm_movemask_epi8(Any))
      continue;
    for (size_t K = 0; K < N; ++K) {
      uint32_t M = unsigned(_mm_movemask_epi8(Hit[2 * K])) |
                   unsigned(_mm_movemask_epi8(Hit[2 * K + 1])) << 16;
      for (; M; M &= M - 1)
        if (!std::memcmp(S + I + __builtin_ctz(M), Words[K].data(),
                         Words[K].size()))
          return true;
    }
  }
  return false;
}
template bool findWordsSse2<1>(StringRef, ArrayRef<StringRef>, size_t &);
template bool findWordsSse2<2>(StringRef, ArrayRef<StringRef>, size_t &);
#endif

bool containsAny(StringRef Text, ArrayRef<StringRef> Words) {
  if (any_of(Words, [](StringRef W) { return W.empty(); }))
    return true;
  size_t I = 0; // matches starting before I are ruled out
#if defined(__SSE2__)
  // A candidate is a position whose byte equals a word's first byte and
  // whose byte len-1 further on equals its last byte. LLVM's
  // Boyer-Moore-Horspool find makes each step wait for the load of the
  // last one: this runs about three times as fast on Triton's IR text.
  bool Found = false;
  switch (Words.size()) {
  case 1:
    Found = findWords<1>(Text, Words, I);
    break;
  case 2:
    Found = findWords<2>(Text, Words, I);
    break;
  default:
    break; // prescans look for one or two words
  }
  if (Found)
    return true;
#endif
  StringRef Rest = Text.drop_front(I);
  return any_of(Words, [&](StringRef W) { return Rest.contains(W); });
}

} // namespace scan
} // namespace gestell
