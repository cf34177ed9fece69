//===- TtgirGraph.h - A parsed TTGIR module written out whole, for tests --===//
//
// Test-only: everything TtgirModule's public API says of a module, as text
// that names no pointer: the module's attributes and attribute aliases,
// then every op in pre-order (index, line:column, name, form, symbol, its
// text, results with their types, operands by the value they read, each
// attribute printed with aliases expanded, regions with their blocks'
// labels and arguments, the location tree with aliases followed) and every
// value's uses. Two parses build the same graph exactly when they write
// the same text: TtgirGraphTest pins a digest of it per corpus file, so a
// change to the parser that changes what a check can see shows up there.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TESTS_TTGIRGRAPH_H
#define GESTELL_TESTS_TTGIRGRAPH_H

#include "gestell/Ttgir.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace gestell::test {

class TtgirGraphWriter {
public:
  TtgirGraphWriter(const TtgirModule &M, llvm::raw_ostream &OS)
      : M(M), OS(OS) {}

  void write() {
    for (auto [I, Op] : llvm::enumerate(M.ops()))
      OpIndex[Op] = I;
    unsigned B = 0;
    for (const Region *R : M.regions())
      for (const Block *Bl : R->Blocks)
        BlockIndex[Bl] = B++;
    OS << "module warps=" << M.numWarps() << " lanes=" << M.threadsPerWarp()
       << " ctas=" << M.numCtas() << " target=" << M.target() << "\n";
    for (const NamedAttribute &A : M.moduleAttributes())
      OS << "  module-attr " << A.Name << " = " << attr(A.Value) << "\n";
    for (llvm::StringRef Name : M.attributeAliasNames())
      OS << "alias " << Name << " = " << attr(M.attributeAlias(Name)) << "\n";
    OS << "functions";
    for (const Operation *F : M.functions())
      OS << " " << OpIndex.lookup(F);
    OS << "\n";
    for (auto [I, Op] : llvm::enumerate(M.ops()))
      writeOp(I, *Op);
  }

private:
  const TtgirModule &M;
  llvm::raw_ostream &OS;
  llvm::DenseMap<const Operation *, size_t> OpIndex;
  llvm::DenseMap<const Block *, unsigned> BlockIndex;

  static std::string attr(const Attribute *A) {
    if (!A)
      return "<null>";
    return std::to_string(unsigned(A->K)) + ":" + A->str();
  }

  static std::string type(const Type *T) {
    if (!T)
      return "?";
    std::string S;
    llvm::raw_string_ostream O(S);
    O << "{" << unsigned(T->K) << " '" << T->Text << "' " << T->Name;
    if (!T->Shape.empty()) {
      O << " shape";
      for (int64_t D : T->Shape)
        O << " " << D;
    }
    if (T->Element)
      O << " elem=" << type(T->Element);
    if (T->Encoding)
      O << " enc=" << attr(T->Encoding);
    if (T->MemorySpace)
      O << " space=" << attr(T->MemorySpace);
    if (T->Mutable)
      O << " mutable";
    if (!T->AllocShape.empty()) {
      O << " alloc";
      for (int64_t D : T->AllocShape)
        O << " " << D;
    }
    O << " as=" << T->AddressSpace << "}";
    return S;
  }

  /// The location tree; aliases are followed (a depth bound stops cycles).
  static std::string loc(const Location *L, unsigned Depth = 0) {
    if (!L)
      return "-";
    if (Depth > 64)
      return "...";
    std::string S =
        "(" + std::to_string(unsigned(L->K)) + " '" + L->Text.str() + "'";
    switch (L->K) {
    case Location::Kind::FileLineCol:
      S += " " + L->File.str() + ":" + std::to_string(L->Line) + ":" +
           std::to_string(L->Column);
      break;
    case Location::Kind::Name:
      S += " " + L->Name.str() + " " + loc(L->Child, Depth + 1);
      break;
    case Location::Kind::CallSite:
      S += " " + loc(L->Callee, Depth + 1) + " at " + loc(L->Caller, Depth + 1);
      break;
    case Location::Kind::Fused:
      for (const Location *P : L->Parts)
        S += " " + loc(P, Depth + 1);
      break;
    case Location::Kind::Alias:
      S += " " + L->Name.str() + "=" + loc(L->Target, Depth + 1);
      break;
    default:
      break;
    }
    return S + ")";
  }

  std::string ref(const Value *V) const {
    if (!V)
      return "<unbound>";
    if (V->Def)
      return "%o" + std::to_string(OpIndex.lookup(V->Def)) + "." +
             std::to_string(V->Index);
    return "%b" + std::to_string(BlockIndex.lookup(V->OwnerBlock)) + "." +
           std::to_string(V->Index);
  }

  void writeValue(const Value *V) {
    OS << "      " << ref(V) << " '" << V->Name << "' " << type(V->Ty)
       << " loc=" << loc(V->Loc) << " uses";
    for (const Use &U : V->Uses)
      OS << " " << OpIndex.lookup(U.User) << "/" << U.OperandNo;
    OS << "\n";
  }

  void writeOp(size_t I, const Operation &Op) {
    OS << "op " << I << " " << Op.Line << ":" << Op.Column << " " << Op.Name
       << (Op.Generic ? " generic" : "") << " @" << Op.Symbol << " parent="
       << (Op.parentOp() ? std::to_string(OpIndex.lookup(Op.parentOp()))
                         : std::string("-"))
       << "\n    text '" << Op.Text << "'\n    loc=" << loc(Op.Loc) << "\n";
    OS << "    results\n";
    for (const Value *V : Op.Results)
      writeValue(V);
    OS << "    operands";
    for (const Value *V : Op.Operands)
      OS << " " << ref(V);
    OS << "\n";
    for (const NamedAttribute &A : Op.Attrs)
      OS << "    attr " << A.Name << " = " << attr(A.Value) << "\n";
    for (const Region *R : Op.Regions) {
      OS << "    region " << R->Index << "\n";
      for (const Block *B : R->Blocks) {
        OS << "     block " << BlockIndex.lookup(B) << " ^" << B->Label
           << " ops";
        for (const Operation *Inner : B->Ops)
          OS << " " << OpIndex.lookup(Inner);
        OS << "\n";
        for (const Value *A : B->Args)
          writeValue(A);
      }
    }
  }
};

/// M written out whole (TtgirGraphWriter).
inline std::string ttgirGraph(const TtgirModule &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  TtgirGraphWriter(M, OS).write();
  return S;
}

} // namespace gestell::test

#endif
