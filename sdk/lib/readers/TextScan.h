//===- TextScan.h - Small helpers shared by the PTX and SASS scanners -----===//
//
// Internal to the SDK. The parsers walk the mapped buffer with raw pointers
// and memchr; these are the pieces both need: the encoding check that runs
// once per file, byte classes, and the word search of the prescans.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TEXTSCAN_H
#define GESTELL_LIB_TEXTSCAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gestell {
namespace scan {

/// Fails with an InputError at the first NUL byte or invalid UTF-8 sequence
/// ("binary data" / "invalid UTF-8"), naming line and column. Pure ASCII is
/// checked 64 bytes a turn (SSE2). On the way it counts the bytes equal to
/// Counted into *Count (the parsers size their vectors from it: ';' for
/// PTX statements and SASS instructions alike).
llvm::Error checkText(llvm::StringRef Buffer, llvm::StringRef Path,
                      char Counted, size_t &Count);

// Most bytes asked about are not: one compare says so for all of them.
inline bool isBlank(char C) {
  return static_cast<unsigned char>(C) <= ' ' &&
         (C == ' ' || C == '\t' || C == '\r');
}
inline bool isSpace(char C) {
  return static_cast<unsigned char>(C) <= ' ' &&
         (C == ' ' || C == '\t' || C == '\r' || C == '\n');
}
inline bool isDigit(char C) { return C >= '0' && C <= '9'; }
inline bool isAlpha(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
}
/// Each byte's value as a hex digit, -1 for any other byte.
inline constexpr std::array<int8_t, 256> HexDigitValues = [] {
  std::array<int8_t, 256> T{};
  for (unsigned C = 0; C < 256; ++C)
    T[C] = C >= '0' && C <= '9'   ? int8_t(C - '0')
           : C >= 'a' && C <= 'f' ? int8_t(C - 'a' + 10)
           : C >= 'A' && C <= 'F' ? int8_t(C - 'A' + 10)
                                  : int8_t(-1);
  return T;
}();
inline int hexValue(char C) {
  return HexDigitValues[static_cast<unsigned char>(C)];
}

namespace detail {
inline constexpr uint64_t Ones = 0x0101010101010101ull;
inline constexpr uint64_t High = 0x8080808080808080ull;
/// High bit set in the bytes of W that equal C (exact for the lowest one).
inline uint64_t bytesEqual(uint64_t W, char C) {
  uint64_t X = W ^ (Ones * static_cast<unsigned char>(C));
  return (X - Ones) & ~X & High;
}
#if defined(__SSE2__)
/// Bit K set where byte K of V equals any of A, B, C.
inline unsigned matchAnyOf3(__m128i V, __m128i A, __m128i B, __m128i C) {
  return unsigned(_mm_movemask_epi8(
      _mm_or_si128(_mm_cmpeq_epi8(V, A),
                   _mm_or_si128(_mm_cmpeq_epi8(V, B), _mm_cmpeq_epi8(V, C)))));
}
#endif
} // namespace detail

/// Skips blanks; sixteen at a time with SSE2, else runs of spaces eight at
/// a time (nvdisasm and cuobjdump pad their lines with dozens).
inline const char *skipBlanks(const char *P, const char *End) {
#if defined(__SSE2__)
  const __m128i Space = _mm_set1_epi8(' '), Tab = _mm_set1_epi8('\t'),
                Cr = _mm_set1_epi8('\r');
  while (End - P >= 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    unsigned Blank = detail::matchAnyOf3(V, Space, Tab, Cr);
    if (Blank != 0xFFFF)
      return P + __builtin_ctz(~Blank);
    P += 16;
  }
#else
  constexpr uint64_t Spaces = 0x2020202020202020ull;
  uint64_t W;
  while (End - P >= 8 && (std::memcpy(&W, P, 8), W == Spaces))
    P += 8;
#endif
  while (P < End && isBlank(*P))
    ++P;
  return P;
}

/// First byte in [P, End) that is a blank, a newline, ';' or '{': where a
/// PTX opcode ends. Colon tells whether a ':' comes before it (a label's,
/// or an opcode's "::"). Sixteen bytes at a time with SSE2, else one.
inline const char *findOpcodeEnd(const char *P, const char *End, bool &Colon) {
#if defined(__SSE2__)
  const __m128i Space = _mm_set1_epi8(0x20), Semi = _mm_set1_epi8(';'),
                Brace = _mm_set1_epi8('{'), Col = _mm_set1_epi8(':');
  unsigned Colons = 0;
  while (End - P >= 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    // Unsigned V <= 0x20: blanks, newlines, controls (not UTF-8 bytes).
    __m128i Low = _mm_cmpeq_epi8(_mm_min_epu8(V, Space), V);
    unsigned M = unsigned(_mm_movemask_epi8(_mm_or_si128(
        Low, _mm_or_si128(_mm_cmpeq_epi8(V, Semi), _mm_cmpeq_epi8(V, Brace)))));
    unsigned C = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, Col)));
    if (M) {
      unsigned Stop = unsigned(__builtin_ctz(M));
      Colon = (Colons | (C & ((1u << Stop) - 1))) != 0;
      return P + Stop;
    }
    Colons |= C;
    P += 16;
  }
  Colon = Colons != 0;
#else
  Colon = false;
#endif
  for (; P < End && static_cast<unsigned char>(*P) > 0x20 && *P != ';' &&
         *P != '{';
       ++P)
    Colon |= *P == ':';
  return P;
}

/// First byte in [P, End) equal to A, B or C, else End. Sixteen bytes at a
/// time with SSE2, else eight.
inline const char *findAnyOf3(const char *P, const char *End, char A, char B,
                              char C) {
#if defined(__SSE2__)
  const __m128i VA = _mm_set1_epi8(A), VB = _mm_set1_epi8(B),
                VC = _mm_set1_epi8(C);
  while (End - P >= 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    unsigned M = detail::matchAnyOf3(V, VA, VB, VC);
    if (M)
      return P + __builtin_ctz(M);
    P += 16;
  }
#else
  using namespace detail;
  while (End - P >= 8) {
    uint64_t W;
    std::memcpy(&W, P, 8);
    uint64_t M = bytesEqual(W, A) | bytesEqual(W, B) | bytesEqual(W, C);
    if (M)
      return P + (__builtin_ctzll(M) >> 3);
    P += 8;
  }
#endif
  while (P < End && *P != A && *P != B && *P != C)
    ++P;
  return P;
}

/// findAnyOf3 (none of A, B, C a newline) that also counts the newlines it
/// passes into Lines and leaves LineStart just after the last of them: a
/// scanner that tracks lines skips a run of text in one call.
inline const char *findAnyOf3CountingLines(const char *P, const char *End,
                                           char A, char B, char C,
                                           uint32_t &Lines,
                                           const char *&LineStart) {
#if defined(__SSE2__)
  const __m128i VA = _mm_set1_epi8(A), VB = _mm_set1_epi8(B),
                VC = _mm_set1_epi8(C), NL = _mm_set1_epi8('\n');
  while (End - P >= 16) {
    __m128i V = _mm_loadu_si128(reinterpret_cast<const __m128i *>(P));
    unsigned Stop = detail::matchAnyOf3(V, VA, VB, VC);
    unsigned Newlines = unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(V, NL)));
    unsigned Span = Stop ? unsigned(__builtin_ctz(Stop)) : 16;
    Newlines &= (1u << Span) - 1; // those before the stop
    if (Newlines) {
      Lines += unsigned(__builtin_popcount(Newlines));
      LineStart = P + (31 - __builtin_clz(Newlines)) + 1;
    }
    P += Span;
    if (Stop)
      return P;
  }
#endif
  for (; P < End && *P != A && *P != B && *P != C; ++P)
    if (*P == '\n') {
      ++Lines;
      LineStart = P + 1;
    }
  return P;
}

/// First ';', '\n' or '/' in [P, End): where a statement ends, its line
/// ends, or a comment may start.
inline const char *findStatementBreak(const char *P, const char *End) {
  return findAnyOf3(P, End, ';', '\n', '/');
}

/// Whether Text holds any of Words, as StringRef::contains on each would
/// say (an empty word is in any text), in one pass: with SSE2, for one or
/// two words, 32 positions at a time are kept as candidates when both the
/// first and the last byte of a word match there, and only candidates are
/// compared (a prescan reads megabytes of text in which the words are
/// rare).
bool containsAny(llvm::StringRef Text, llvm::ArrayRef<llvm::StringRef> Words);

/// End of the line holding P (the '\n' or End).
inline const char *lineEnd(const char *P, const char *End) {
  const void *NL = memchr(P, '\n', End - P);
  return NL ? static_cast<const char *>(NL) : End;
}

inline llvm::StringRef trim(const char *B, const char *E) {
  while (B < E && isSpace(*B))
    ++B;
  while (E > B && isSpace(E[-1]))
    --E;
  return llvm::StringRef(B, E - B);
}

/// Parses decimal digits at P (advancing it); false when none or overflow.
inline bool parseDecimal(const char *&P, const char *End, uint32_t &Out) {
  const char *B = P;
  uint64_t V = 0;
  while (P < End && isDigit(*P)) {
    V = V * 10 + (*P - '0');
    if (V > UINT32_MAX)
      return false;
    ++P;
  }
  Out = static_cast<uint32_t>(V);
  return P != B;
}

/// Parses hex digits at P (advancing it); false when none or more than 16.
inline bool parseHex(const char *&P, const char *End, uint64_t &Out) {
  const char *B = P;
  uint64_t V = 0;
  int D;
  while (P < End && (D = hexValue(*P)) >= 0) {
    if (P - B >= 16)
      return false;
    V = (V << 4) | static_cast<uint64_t>(D);
    ++P;
  }
  Out = V;
  return P != B;
}

} // namespace scan
} // namespace gestell

#endif
