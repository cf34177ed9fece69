//===- TextScan.h - Small helpers shared by the PTX and SASS scanners -----===//
//
// Internal to the SDK. The parsers walk the mapped buffer with raw pointers
// and memchr; these are the pieces both need: the encoding check that runs
// once per file, and byte classes.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TEXTSCAN_H
#define GESTELL_LIB_TEXTSCAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace gestell {
namespace scan {

/// Fails with an InputError at the first NUL byte or invalid UTF-8 sequence
/// ("binary data" / "invalid UTF-8"), naming line and column. Pure ASCII is
/// checked eight bytes at a time.
llvm::Error checkText(llvm::StringRef Buffer, llvm::StringRef Path);

inline bool isBlank(char C) { return C == ' ' || C == '\t' || C == '\r'; }
inline bool isSpace(char C) { return isBlank(C) || C == '\n'; }
inline bool isDigit(char C) { return C >= '0' && C <= '9'; }
inline bool isAlpha(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
}
inline int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return -1;
}

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
