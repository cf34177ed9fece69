//===- TextScanSimd.h - TextScan.cpp's vector passes, per ISA --*- C++ -*-===//
//
// checkText's pass over plain 64-byte blocks and containsAny's pass over
// candidate positions, in SSE2 (every x86-64) and, where the compiler can
// build it, AVX2 (TextScanAvx2.cpp, chosen at run time: twice the bytes a
// turn for the same instructions). The dispatchers pick the widest the CPU
// has; both passes stop and count exactly alike, so the results do not
// depend on which one ran.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_READERS_TEXTSCANSIMD_H
#define GESTELL_LIB_READERS_TEXTSCANSIMD_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GESTELL_HAVE_AVX2 1
#else
#define GESTELL_HAVE_AVX2 0
#endif

namespace gestell::scan {

/// From I on, the 64-byte blocks with no NUL and no byte >= 0x80: I ends
/// past them, their Want bytes are added to Matches. Returns where the
/// byte-by-byte path takes over: the end of the first block that is not
/// plain (I is its start), else the end of the text.
size_t plainBlocksSse2(const char *B, size_t N, size_t &I, char Want,
                       size_t &Matches);

/// Whether one of Words (N of them, none empty) starts at a position the
/// pass reaches: a candidate has a word's first byte there and its last
/// byte where the word would end, and is then compared whole. I ends where
/// the pass stopped, every match starting before it ruled out.
template <size_t N>
bool findWordsSse2(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
                   size_t &I);

#if GESTELL_HAVE_AVX2
bool hasAvx2();
__attribute__((target("avx2"))) size_t plainBlocksAvx2(const char *B, size_t N,
                                                       size_t &I, char Want,
                                                       size_t &Matches);
/// findWordsSse2<1> and findWordsSse2<2>.
__attribute__((target("avx2"))) bool
findOneWordAvx2(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
                size_t &I);
__attribute__((target("avx2"))) bool
findTwoWordsAvx2(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
                 size_t &I);
#endif

inline size_t plainBlocks(const char *B, size_t N, size_t &I, char Want,
                          size_t &Matches) {
#if GESTELL_HAVE_AVX2
  if (hasAvx2())
    return plainBlocksAvx2(B, N, I, Want, Matches);
#endif
  return plainBlocksSse2(B, N, I, Want, Matches);
}

template <size_t N>
bool findWords(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words,
               size_t &I) {
#if GESTELL_HAVE_AVX2
  if (hasAvx2())
    return N == 1 ? findOneWordAvx2(Text, Words, I)
                  : findTwoWordsAvx2(Text, Words, I);
#endif
  return findWordsSse2<N>(Text, Words, I);
}

} // namespace gestell::scan

#endif
