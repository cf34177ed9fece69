//===- TtgirLexer.cpp - Strings, brackets and line lookahead of TTGIR -----===//
//
// The scanning that runs once per string, bracket or line rather than per
// byte (which is inline in TtgirLexer.h).
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirLexer.h"
#include "readers/TextScan.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace gestell::ttgir {

bool Lexer::expected(char C, StringRef What) {
  return fail(P, Twine("expected '") + Twine(C) + "' " + What);
}

std::optional<uint64_t> Lexer::decimalAt(const char *S, uint64_t Max,
                                         StringRef What) {
  P = S;
  uint64_t V = 0;
  while (P < E && *P >= '0' && *P <= '9') {
    uint64_t D = *P++ - '0';
    if (V > (Max - D) / 10) {
      while (P < E && *P >= '0' && *P <= '9')
        ++P;
      failBounds(S, What + " " + StringRef(S, P - S) + " is larger than " +
                        Twine(Max));
      return std::nullopt;
    }
    V = V * 10 + D;
  }
  return V;
}

LLVM_ATTRIBUTE_ALWAYS_INLINE const char *Lexer::stringEnd(const char *Q,
                                                          bool &Closed) const {
  ++Q; // "
  // Strings are file paths and names: 16 bytes a turn to the next stop.
  while ((Q = scan::findAnyOf3(Q, E, '"', '\\', '\n')) < E && *Q != '"') {
    if (*Q == '\\' && Q + 1 < E)
      ++Q;
    if (*Q == '\n')
      break;
    ++Q;
  }
  Closed = Q < E && *Q == '"';
  return Closed ? Q + 1 : Q;
}

StringRef Lexer::lexString() {
  const char *S = P;
  bool Closed;
  P = stringEnd(S, Closed);
  if (!Closed) {
    fail(S, "unterminated string");
    return {};
  }
  return StringRef(S + 1, P - S - 2);
}

LLVM_ATTRIBUTE_ALWAYS_INLINE Lexer::Brackets
Lexer::bracketsEnd(const char *Q) const {
  const char *Open = Q;
  int Depth = 0;
  while ((Q = skipUntil(Q, Bracketing)) < E) {
    // The byte is read again here, not kept from skipUntil's loop: kept,
    // it takes a second register there and an instruction a byte of every
    // type (GCC 12; check on the sweep +0.2 M instructions).
    asm("" : "+r"(Q));
    char C = *Q;
    if (C == '\0') { // inside the text: not a bracket
      ++Q;
      continue;
    }
    if (C == '"') {
      bool Closed;
      const char *String = Q;
      Q = stringEnd(Q, Closed);
      if (!Closed)
        return {Q, String};
      continue;
    }
    if (C == '\n')
      break;
    if (C == '-' && Q + 1 < E && Q[1] == '>') {
      Q += 2;
      continue;
    }
    if (C == '<' || C == '(' || C == '[' || C == '{')
      ++Depth;
    else if ((C == '>' || C == ')' || C == ']' || C == '}') && --Depth == 0)
      return {Q + 1, nullptr};
    ++Q;
  }
  return {Q, Open};
}

bool Lexer::skipAngle() {
  Brackets B = bracketsEnd(P);
  if (!B.Unclosed) {
    P = B.End;
    return true;
  }
  if (*B.Unclosed == '"') { // lexString says why
    P = B.Unclosed;
    lexString();
    return false;
  }
  return fail(P, "unbalanced '<'");
}

const char *Lexer::scanTypeEnd(const char *Q) const {
  if (Q < E && *Q == '!')
    ++Q;
  while (isIdChar(*Q))
    ++Q;
  return Q < E && *Q == '<' ? bracketsEnd(Q).End : Q;
}

bool Lexer::nextLineContinuesOp() const {
  // Blank lines and whole-line comments between the parts of an op (a
  // comment between two partitions of ttg.warp_specialize) are skipped.
  // The scans stop at the NUL past the text (TtgirLexer.h).
  const char *Q = blankEnd(P);
  if (Q >= E || !isIdStart(*Q))
    return false;
  const char *B = Q;
  while (llvm::isAlnum(*Q) || *Q == '_')
    ++Q;
  StringRef Word(B, Q - B);
  if (*Q == '.')
    return false; // dialect.op
  return Word != "module";
}

} // namespace gestell::ttgir
