//===- TtgirParser.cpp - MLIR text (as Triton prints it) to a graph ------===//
//
// A single pass over the text with a hand-written scanner (no regex): every
// printed op shares `results = name operands {attrs} regions : types loc()`,
// in custom or generic form, so the scanner reads that shape without knowing
// each op's syntax. Attributes, types and locations have small recursive
// parsers. Type texts are interned, so the thousands of identical tensor
// types in a kernel are parsed once. Operands are resolved when their name
// scope (a function, or another isolated region) closes, which also catches
// uses of undefined values.
//
// This file: the top level of the file (aliases, resources, ops), the use
// lists, and the entry points.
//
//===----------------------------------------------------------------------===//
#include "readers/ttgir/TtgirParser.h"

#include "gestell/Error.h"
#include "gestell/Input.h"
#include "gestell/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace gestell {
namespace ttgir {

bool Parser::closeList(char Close, StringRef Context) {
  if (peek() == Close) {
    ++P;
    return true;
  }
  return fail(P, Twine("expected ',' or '") + Twine(Close) + "' " + Context);
}

/// `#name = attribute`, `#loc = loc(...)` or `!name = type`, up to the end
/// of its line.
bool Parser::parseAliasDefinition() {
  const char *S = P;
  bool IsAttr = *P == '#';
  ++P;
  lexBareId();
  StringRef Name(S, P - S);
  if (!expect('=', "in alias definition"))
    return false;
  skipHSpace();
  if (IsAttr && startsWith("loc(")) {
    const Location *L = parseLoc();
    if (!L)
      return false;
    if (!I.defineLocAlias(Name, L))
      fail(S, "redefinition of location alias " + Name);
  } else if (IsAttr) {
    InAliasBody = true;
    const Attribute *A = parseAttribute();
    InAliasBody = false;
    if (!A)
      return false;
    if (A->AliasName.empty())
      const_cast<Attribute *>(A)->AliasName = Name;
    if (!I.Aliases.try_emplace(Name, A).second)
      fail(S, "redefinition of attribute alias " + Name);
    M.AliasOrder.push_back(Name);
  } else {
    const Type *T = parseType();
    if (!T)
      return false;
    I.TypeAliases[Name] = T;
  }
  skipHSpace();
  if (!atEnd() && *P != '\n' && !(*P == '/' && peek(1) == '/'))
    fail(P, "unexpected text after the alias definition");
  return true;
}

/// File-level resources ({-# dialect_resources: ... #-}): skipped.
bool Parser::skipResources() {
  const char *Close = std::search(P, E, "#-}", "#-}" + 3);
  if (Close == E)
    return fail(P, "unterminated '{-#'");
  P = Close + 3;
  return true;
}

/// After the last op: what only the whole file settles (forward
/// references at file scope, location aliases, the module op).
bool Parser::finishFile(ArrayRef<Operation *> TopOps) {
  if (failed() || !closeScope() || !resolveLocations())
    return false;
  for (Operation *Op : TopOps)
    if (Op->Name == "builtin.module") {
      M.ModuleOp = Op;
      return true;
    }
  return fail(Buf.begin(), "no 'module' operation in the file");
}

void Parser::computeUses() {
  // Each value's use count first, held in the size of its (still empty)
  // Uses; then, in op order, one array per value, made at its first use and
  // filled as its uses come.
  for (Operation *Op : M.AllOps)
    for (Value *V : Op->Operands)
      if (V)
        V->Uses = ArrayRef<Use>(nullptr, V->Uses.size() + 1);
  for (Operation *Op : M.AllOps)
    for (auto [K, V] : llvm::enumerate(Op->Operands)) {
      if (!V)
        continue;
      if (!V->Uses.data())
        V->Uses =
            ArrayRef<Use>(I.Arena.Allocate<Use>(V->Uses.size()), size_t(0));
      Use *Arr = const_cast<Use *>(V->Uses.data());
      size_t N = V->Uses.size();
      Arr[N] = Use{Op, unsigned(K)};
      V->Uses = ArrayRef<Use>(Arr, N + 1);
    }
}

Error Parser::run() {
  // Line table for line/column of any pointer (memchr: a word at a time).
  I.LineStarts.push_back(0);
  for (const char *B = Buf.data(), *S = B, *End = B + Buf.size();
       (S = static_cast<const char *>(std::memchr(S, '\n', End - S)));)
    I.LineStarts.push_back(++S - B);
  // About one op, value and location reference a line: the lists are made
  // once at about their size, not grown by doubling (each growth a malloc,
  // a copy and a free). Bounded: a file of empty lines holds no op, and
  // Triton's largest files have a few thousand lines.
  size_t Lines = std::min<size_t>(I.LineStarts.size(), 1 << 16);
  M.AllOps.reserve(Lines);
  I.AllValues.reserve(Lines);
  AliasLocs.reserve(Lines);
  Bindings.reserve(Lines);

  Block *Top = I.make<Block>();
  SmallVector<Operation *, 2> TopOps;
  openScope(/*Isolated=*/true); // file scope
  while (!failed()) {
    skipWS();
    if (atEnd())
      break;
    if (*P == '#' || (*P == '!' && isIdStart(peek(1)))) {
      if (!parseAliasDefinition())
        break;
      continue;
    }
    if (*P == '}') {
      fail(P, "unexpected '}': no region is open here");
      break;
    }
    if (startsWith("{-#")) {
      if (!skipResources())
        break;
      continue;
    }
    if (!parseOperation(Top, TopOps))
      break;
  }
  if (!finishFile(TopOps)) {
    auto [L, C] = M.lineColOf(FailPos);
    return inputError(Path, L, C, FailMsg);
  }
  Top->Ops = I.copy<Operation *>(TopOps);
  computeUses();
  return Error::success();
}

} // namespace ttgir

namespace {
Expected<std::unique_ptr<TtgirModule>>
parseModule(std::unique_ptr<TtgirModule> M, StringRef Path) {
  ttgir::Parser Ps(*M, Path);
  if (Error E = Ps.run())
    return E;
  if (Error E = verifyLayouts(*M))
    return E;
  return M;
}
} // namespace

Expected<std::unique_ptr<TtgirModule>> parseTtgirText(StringRef Text,
                                                      StringRef Path) {
  auto M = std::make_unique<TtgirModule>();
  M->Path = Path.str();
  M->I->OwnedText = Text.str();
  M->I->Text = M->I->OwnedText;
  return parseModule(std::move(M), Path);
}

Expected<std::unique_ptr<TtgirModule>> parseTtgir(StringRef Path) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  auto M = std::make_unique<TtgirModule>();
  M->Path = Path.str();
  M->I->Buffer = std::move(*Buf);
  M->I->Text = M->I->Buffer->getBuffer();
  return parseModule(std::move(M), Path);
}

} // namespace gestell
