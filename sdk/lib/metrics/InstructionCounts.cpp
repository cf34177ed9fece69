//===- InstructionCounts.cpp - Opcode and family counts of a stage --------===//
//
// One pass over the instructions fills the per-opcode counts; families are
// then summed per distinct opcode, so each opcode is classified once.
//
//===----------------------------------------------------------------------===//
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace gestell {

namespace {
template <typename FunctionT>
void countFunction(const FunctionT &F, StageCounts &C) {
  ++C.Functions;
  C.Loops += F.CF.Loops.size();
  for (uint32_t I = 0, E = F.Instructions.size(); I != E; ++I) {
    Count &Op = C.Opcodes[F.Instructions[I].Opcode];
    ++Op.Total;
    if (F.CF.inLoop(I))
      ++Op.InLoops;
  }
}

void addFamilies(StageCounts &C, const FamilyTable &Table) {
  C.Families.assign(Table.families().size(), Count());
  for (const auto &E : C.Opcodes) {
    C.Instructions += E.second;
    unsigned F = Table.classify(C.Of, E.first());
    (F == NoFamily ? C.Other : C.Families[F]) += E.second;
  }
}
} // namespace

std::vector<std::pair<StringRef, Count>> StageCounts::sortedOpcodes() const {
  std::vector<std::pair<StringRef, Count>> Out;
  Out.reserve(Opcodes.size());
  for (const auto &E : Opcodes)
    Out.push_back({E.first(), E.second});
  llvm::sort(Out,
             [](const auto &A, const auto &B) { return A.first < B.first; });
  return Out;
}

StageCounts countInstructions(const PtxModule &M, const FamilyTable &Table) {
  StageCounts C;
  C.Of = Isa::PTX;
  for (const PtxFunction &F : M.Functions)
    countFunction(F, C);
  addFamilies(C, Table);
  return C;
}

StageCounts countInstructions(const SassModule &M, const FamilyTable &Table) {
  StageCounts C;
  C.Of = Isa::SASS;
  for (const SassFunction &F : M.Functions) {
    countFunction(F, C);
    C.NeverExecuted += F.NeverExecuted;
  }
  addFamilies(C, Table);
  return C;
}

} // namespace gestell
