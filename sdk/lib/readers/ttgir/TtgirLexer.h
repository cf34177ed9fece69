//===- TtgirLexer.h - Cursor and scanning of the TTGIR parser (internal) -===//
//
// The cursor over the text, the first failure, and the scanning the grammar
// is built on: spaces, comments, identifiers, strings, numbers, balanced
// angle brackets. What runs per byte is inline here (character classes by
// table, no libc call, no locale lookup); what runs once per string or
// bracket is in TtgirLexer.cpp.
//
// The text ends in a NUL byte past its last one, as clang's and MLIR's
// lexers require of their buffers (openArtifact's buffers and
// parseTtgirText's copy do): NUL is in no class a scan runs over, so those
// loops stop there without testing for the end; a scan until a class stops
// at NUL too (it is Bracketing), and goes on past one inside the text.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TTGIRLEXER_H
#define GESTELL_LIB_TTGIRLEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compiler.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace gestell::ttgir {

enum CharClass : uint8_t {
  IdStart = 1,
  IdChar = 2,
  ValueIdChar = 4,
  /// What a scan over bracketed text stops at: brackets, '"', '-' (of
  /// "->"), the newline and NUL (the end of the text, or a NUL inside it
  /// that the scan steps over); every other byte costs one table lookup.
  Bracketing = 8,
  /// Blanks within a line: ' ', '\t', '\r' (skipHSpace, once per token).
  HSpace = 16,
};
inline constexpr std::array<uint8_t, 256> CharClasses = [] {
  std::array<uint8_t, 256> T{};
  for (unsigned C = 0; C < 256; ++C) {
    bool Alpha = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
    bool Digit = C >= '0' && C <= '9';
    if (Alpha || C == '_')
      T[C] |= IdStart;
    if (Alpha || Digit || C == '_' || C == '$' || C == '.')
      T[C] |= IdChar | ValueIdChar;
    if (C == '-')
      T[C] |= ValueIdChar;
  }
  for (unsigned char C :
       {'<', '(', '[', '{', '>', ')', ']', '}', '"', '-', '\n', '\0'})
    T[C] |= Bracketing;
  for (unsigned char C : {' ', '\t', '\r'})
    T[C] |= HSpace;
  return T;
}();
inline bool isIdStart(char C) {
  return CharClasses[(unsigned char)C] & IdStart;
}
inline bool isIdChar(char C) { return CharClasses[(unsigned char)C] & IdChar; }
inline bool isValueIdChar(char C) {
  return CharClasses[(unsigned char)C] & ValueIdChar;
}
/// The first byte at or after P of class Class, which NUL must be in (the
/// byte past the text is NUL).
inline const char *skipUntil(const char *P, uint8_t Class) {
  while (!(CharClasses[(unsigned char)*P] & Class))
    ++P;
  return P;
}

/// The cursor P over [P, E), where *E is NUL, and the first failure. Parsing
/// stops at the first one: every scanner returns false (or an empty result)
/// once it is recorded, and later failures do not replace it. Hidden, as all
/// of the parser: libgestell does not export it, and its calls between the
/// parser's files need no interposition (so they may be inlined).
class [[gnu::visibility("hidden")]] Lexer {
public:
  explicit Lexer(llvm::StringRef Buf)
      : Buf(Buf), P(Buf.begin()), E(Buf.end()) {}

  llvm::StringRef Buf;
  const char *P, *E;

  // First failure: where and what.
  const char *FailPos = nullptr;
  std::string FailMsg;
  bool BoundsFailure = false; ///< the failure is a number out of bounds

  // -- errors ---------------------------------------------------------------
  bool fail(const char *Pos, const llvm::Twine &Msg) {
    if (!FailPos) {
      FailPos = Pos ? Pos : P;
      FailMsg = Msg.str();
    }
    return false;
  }
  bool failed() const { return FailPos != nullptr; }
  /// A failure that text read leniently (an op's result types) must not
  /// swallow: a number out of bounds.
  bool failBounds(const char *Pos, const llvm::Twine &Msg) {
    if (!FailPos)
      BoundsFailure = true;
    return fail(Pos, Msg);
  }
  /// Forgets the failure of a lenient read (see failBounds).
  void clearFailure() {
    FailPos = nullptr;
    FailMsg.clear();
  }
  /// The failure is a use of an undefined alias, which no lenient read
  /// forgives.
  bool failedOnUndefined() const {
    return llvm::StringRef(FailMsg).starts_with("use of undefined");
  }

  // -- scanning -------------------------------------------------------------
  /// The byte at P: NUL at the end of the text.
  char peek() const { return *P; }
  char peek(size_t Ahead) const { return P + Ahead < E ? P[Ahead] : '\0'; }
  bool atEnd() const { return P >= E; }
  bool startsWith(llvm::StringRef S) const {
    return size_t(E - P) >= S.size() && llvm::StringRef(P, S.size()) == S;
  }
  void skipHSpace() {
    while (CharClasses[(unsigned char)*P] & HSpace)
      ++P;
  }
  /// The newline at or after Q, or E.
  const char *lineEnd(const char *Q) const {
    const void *NL = std::memchr(Q, '\n', E - Q);
    return NL ? static_cast<const char *>(NL) : E;
  }
  void skipLineComment() { P = lineEnd(P); }
  /// Past the spaces, newlines and // comments at Q.
  const char *blankEnd(const char *Q) const {
    for (;;) {
      char C = *Q;
      if (C == ' ' || C == '\t' || C == '\r' || C == '\n')
        ++Q;
      else if (C == '/' && Q[1] == '/') // Q < E: Q[1] is at most the NUL
        Q = lineEnd(Q);
      else
        return Q;
    }
  }
  /// Spaces, newlines and // comments.
  void skipWS() { P = blankEnd(P); }
  bool consume(char C) {
    skipHSpace();
    if (peek() != C)
      return false;
    ++P;
    return true;
  }
  bool expect(char C, llvm::StringRef What) {
    if (LLVM_LIKELY(consume(C)))
      return true;
    return expected(C, What);
  }
  /// expect()'s failure, out of line: the message is built only here.
  [[gnu::noinline, gnu::cold]] bool expected(char C, llvm::StringRef What);
  llvm::StringRef lexBareId() {
    const char *S = P;
    if (isIdStart(*P)) {
      ++P;
      while (isIdChar(*P))
        ++P;
    }
    return llvm::StringRef(S, P - S);
  }
  /// The name after %, ^ or @ (possibly empty): `0`, `arg3`, `bb1`.
  llvm::StringRef lexValueId() {
    const char *S = P;
    while (isValueIdChar(*P))
      ++P;
    return llvm::StringRef(S, P - S);
  }
  /// Decimal digits at P (at least one) as a number no larger than Max; a
  /// larger one is a located error naming What ("a shape dimension").
  template <typename T>
  bool lexDecimal(T &Out, uint64_t Max, llvm::StringRef What) {
    const char *S = P;
    uint64_t V = 0; // 19 digits or fewer cannot wrap
    while (unsigned(*P - '0') < 10)
      V = V * 10 + unsigned(*P++ - '0');
    if (LLVM_UNLIKELY(P == S))
      return fail(S, "expected digits in " + What);
    if (LLVM_UNLIKELY(P - S > 19 || V > Max)) {
      std::optional<uint64_t> Long = decimalAt(S, Max, What);
      if (!Long)
        return false;
      V = *Long;
    }
    Out = T(V);
    return true;
  }
  /// The number of the digits at S (P after them) when it is no larger
  /// than Max, else a located error: lexDecimal's slow path, out of line.
  [[gnu::noinline, gnu::cold]] std::optional<uint64_t>
  decimalAt(const char *S, uint64_t Max, llvm::StringRef What);

  /// A string literal at P (the quotes included in the skipped range);
  /// returns the contents, escapes kept.
  llvm::StringRef lexString();
  /// Past the string literal whose opening quote is at Q: after its closing
  /// quote (Closed), else at the newline or the end of the text that leaves
  /// it unterminated; never past the end. A backslash escapes the next
  /// byte, but not a newline.
  const char *stringEnd(const char *Q, bool &Closed) const;
  /// Where the bracketed text at Q ends (bracketsEnd).
  struct Brackets {
    const char *End;      ///< past the closing bracket, or where it stopped
    const char *Unclosed; ///< null, or the bracket at Q or the quote of a
                          ///< string that the line or the text leaves open
  };
  /// The bracket at Q to the one that closes it (nested (), [], {}, <>;
  /// strings skipped; `->` does not close), on one line.
  Brackets bracketsEnd(const char *Q) const;
  /// Skips a balanced <...> starting at '<' (bracketsEnd): false, with
  /// the located error, when it is not closed on its line.
  bool skipAngle();
  /// Where the type starting at Q ends, without building it (for the type
  /// cache).
  const char *scanTypeEnd(const char *Q) const;
  /// After a newline that ends an op header at depth 0: does the next line
  /// continue it (`default {`, `partition0(...) num_warps(4) {` of
  /// ttg.warp_specialize)? Op lines start with %, ", ^, } or a dotted name.
  bool nextLineContinuesOp() const;
};

} // namespace gestell::ttgir

#endif
