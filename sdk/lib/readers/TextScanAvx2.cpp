//===- TextScanAvx2.cpp - TextScan's vector passes, 32 bytes a vector -----===//
//
// The AVX2 twins of plainBlocksSse2 and findWordsSse2 (TextScan.cpp): the
// same steps on 256-bit vectors, built for AVX2 function by function (the
// rest of the library stays x86-64 baseline) and called only where the CPU
// has it (hasAvx2).
//
//===----------------------------------------------------------------------===//
#include "readers/TextScanSimd.h"

#if GESTELL_HAVE_AVX2
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace gestell::scan {

bool hasAvx2() {
  static const bool Has = __builtin_cpu_supports("avx2");
  return Has;
}

__attribute__((target("avx2"))) size_t plainBlocksAvx2(const char *B, size_t N,
                                                       size_t &I, char Want,
                                                       size_t &Matches) {
  // Two vectors a block: a byte's hit counter grows by at most 2 a block,
  // so 127 blocks fit in its 8 bits.
  size_t Stop = N;
  const __m256i Zero = _mm256_setzero_si256(), WantV = _mm256_set1_epi8(Want);
  for (bool Plain = true; Plain && I + 64 <= N;) {
    __m256i Acc = Zero;
    unsigned Blocks = 0;
    for (; Blocks < 127 && I + 64 <= N; ++Blocks, I += 64) {
      const __m256i *P = reinterpret_cast<const __m256i *>(B + I);
      __m256i V0 = _mm256_loadu_si256(P), V1 = _mm256_loadu_si256(P + 1);
      // NUL: the unsigned minimum of the two is 0 somewhere.
      __m256i Odd =
          _mm256_or_si256(_mm256_or_si256(V0, V1),
                          _mm256_cmpeq_epi8(_mm256_min_epu8(V0, V1), Zero));
      __m256i Hit = _mm256_add_epi8(_mm256_cmpeq_epi8(V0, WantV),
                                    _mm256_cmpeq_epi8(V1, WantV));
      if (_mm256_movemask_epi8(Odd)) {
        Stop = I + 64;
        Plain = false;
        break;
      }
      Acc = _mm256_sub_epi8(Acc, Hit);
    }
    __m256i Sums = _mm256_sad_epu8(Acc, Zero);
    Matches += size_t(_mm256_extract_epi64(Sums, 0)) +
               size_t(_mm256_extract_epi64(Sums, 1)) +
               size_t(_mm256_extract_epi64(Sums, 2)) +
               size_t(_mm256_extract_epi64(Sums, 3));
  }
  return Stop;
}

namespace {
/// findWordsSse2<N>'s steps, 32 start positions a vector. Inlined into the
/// two entry points below (a template with a target attribute cannot be
/// declared in the header: GCC takes it for another version of itself).
template <size_t N>
__attribute__((target("avx2"), always_inline)) inline bool
scanWords(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
          size_t &I) {
  size_t MaxLen = 0;
  __m256i First[N], Last[N];
  for (size_t K = 0; K < N; ++K) {
    MaxLen = std::max(MaxLen, Words[K].size());
    First[K] = _mm256_set1_epi8(Words[K].front());
    Last[K] = _mm256_set1_epi8(Words[K].back());
  }
  const char *S = Text.data();
  // Every load, and the compare of every candidate, ends inside Text.
  for (; I + MaxLen + 31 <= Text.size(); I += 32) {
    __m256i Head = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(S + I));
    __m256i Any = _mm256_setzero_si256();
    for (size_t K = 0; K < N; ++K) {
      __m256i Tail = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(S + I + Words[K].size() - 1));
      Any = _mm256_or_si256(Any,
                            _mm256_and_si256(_mm256_cmpeq_epi8(Head, First[K]),
                                             _mm256_cmpeq_epi8(Tail, Last[K])));
    }
    if (!_mm256_movemask_epi8(Any))
      continue;
    // A candidate (rare): each word's positions again, then compared whole.
    for (size_t K = 0; K < N; ++K) {
      __m256i Tail = _mm256_loadu_si256(
          reinterpret_cast<const __m256i *>(S + I + Words[K].size() - 1));
      uint32_t M = uint32_t(_mm256_movemask_epi8(
          _mm256_and_si256(_mm256_cmpeq_epi8(Head, First[K]),
                           _mm256_cmpeq_epi8(Tail, Last[K]))));
      for (; M; M &= M - 1)
        if (!std::memcmp(S + I + __builtin_ctz(M), Words[K].data(),
                         Words[K].size()))
          return true;
    }
  }
  return false;
}
} // namespace

__attribute__((target("avx2"))) bool
findOneWordAvx2(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
                size_t &I) {
  return scanWords<1>(Text, Words, I);
}

__attribute__((target("avx2"))) bool
findTwoWordsAvx2(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
                 size_t &I) {
  return scanWords<2>(Text, Words, I);
}

} // namespace gestell::scan
#endif
