//===- TtgirLocations.cpp - Locations of TTGIR: loc(...) ------------------===//
//
// loc("file":line:col), named, callsite, fused, unknown and alias
// locations; other forms are kept as text. Aliases (#loc3) are resolved
// once the whole file is read, since Triton prints their definitions last.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirParser.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace gestell::ttgir {

const Location *Parser::parseLoc() {
  P += 4; // loc(
  const Location *L = parseLocInner();
  if (!L || !expect(')', "to close loc()"))
    return nullptr;
  return L;
}

const Location *Parser::parseLocInner() {
  Nest N(*this);
  if (!N.Ok)
    return nullptr;
  skipHSpace();
  const char *S = P;
  Location *L = I.make<Location>();
  bool Ok = true;
  if (peek() == '#') {
    ++P;
    lexBareId();
    L->K = Location::Kind::Alias;
    L->Name = StringRef(S, P - S);
    AliasLocs.push_back(L);
  } else if (peek() == '"') {
    Ok = parseStringLoc(L);
  } else if (startsWith("unknown")) {
    P += 7;
    L->K = Location::Kind::Unknown;
  } else if (startsWith("callsite(")) {
    P += 9;
    Ok = parseCallSiteLoc(L);
  } else if (startsWith("fused")) {
    P += 5;
    Ok = parseFusedLoc(L);
  } else {
    skipOpaqueLoc();
    L->K = Location::Kind::Opaque;
  }
  if (!Ok)
    return nullptr;
  L->Text = StringRef(S, P - S);
  return L;
}

/// `"file":line:col` (a range `"f":1:2 to 3:4` reduced to its start), or a
/// name with an optional child location: `"x"("f":1:2)`.
bool Parser::parseStringLoc(Location *L) {
  StringRef Str = lexString();
  if (failed())
    return false;
  if (peek() != ':' || !llvm::isDigit(peek(1))) {
    L->K = Location::Kind::Name;
    L->Name = Str;
    if (peek() != '(')
      return true;
    ++P;
    L->Child = parseLocInner();
    return L->Child && expect(')', "to close the name location");
  }
  L->K = Location::Kind::FileLineCol;
  L->File = Str;
  ++P;
  if (!lexDecimal(L->Line, UINT32_MAX, "a line number"))
    return false;
  if (peek() == ':') {
    ++P;
    if (!lexDecimal(L->Column, UINT32_MAX, "a column number"))
      return false;
  }
  const char *Save = P;
  skipHSpace();
  if (startsWith("to ") || startsWith("to:")) {
    P += 2;
    skipHSpace();
    while (P < E && (llvm::isDigit(*P) || *P == ':'))
      ++P;
  } else {
    P = Save;
  }
  return true;
}

/// `callee at caller)`.
bool Parser::parseCallSiteLoc(Location *L) {
  L->K = Location::Kind::CallSite;
  L->Callee = parseLocInner();
  if (!L->Callee)
    return false;
  skipHSpace();
  if (!startsWith("at"))
    return fail(P, "expected 'at' in callsite location");
  P += 2;
  L->Caller = parseLocInner();
  return L->Caller && expect(')', "to close callsite()");
}

/// `<metadata>[loc, loc, ...]`.
bool Parser::parseFusedLoc(Location *L) {
  L->K = Location::Kind::Fused;
  if (peek() == '<' && !skipAngle())
    return false;
  SmallVector<const Location *, 4> Parts;
  if (!parseCommaSeparatedList(
          Delimiter::Square, [&] { return append(Parts, parseLocInner()); },
          "in fused location"))
    return false;
  L->Parts = I.copy<const Location *>(Parts);
  return true;
}

/// Unknown location syntax: the text up to the closing ')'.
void Parser::skipOpaqueLoc() {
  int Depth = 0;
  while (P < E && *P != '\n') {
    if (*P == '"') {
      lexString();
      continue;
    }
    if (*P == '(' || *P == '[' || *P == '<')
      ++Depth;
    else if (*P == ')' || *P == ']' || *P == '>') {
      if (Depth == 0)
        break;
      --Depth;
    }
    ++P;
  }
}

bool Parser::resolveLocations() {
  for (Location *L : AliasLocs) {
    L->Target = I.locAlias(L->Name);
    if (!L->Target)
      return fail(L->Name.data(), "use of undefined location alias " + L->Name);
  }
  return true;
}

} // namespace gestell::ttgir
