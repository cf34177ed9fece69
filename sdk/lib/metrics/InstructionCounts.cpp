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

#include <algorithm>
#include <array>
#include <cstring>

using namespace llvm;

namespace gestell {

namespace {
/// The opcodes a run of instructions repeats, in front of the StringMap: a
/// direct-mapped table by length and first bytes, checked by comparing the
/// text, so that most instructions cost a compare instead of a hash.
class OpcodeSlots {
public:
  explicit OpcodeSlots(StringMap<Count> &Map) : Map(Map) {}
  Count &operator[](StringRef Op) {
    uint64_t Head = 0;
    std::memcpy(&Head, Op.data(), std::min<size_t>(Op.size(), 8));
    Slot &S = Slots[(Head * 0x9E3779B97F4A7C15ull + Op.size()) >> 58];
    if (S.Value && S.Text == Op)
      return *S.Value;
    Count &C = Map[Op]; // entries do not move when the map grows
    S = {Op, &C};
    return C;
  }

private:
  struct Slot {
    StringRef Text;
    Count *Value = nullptr;
  };
  StringMap<Count> &Map;
  std::array<Slot, 64> Slots;
};

template <typename FunctionT>
void countFunction(const FunctionT &F, StageCounts &C) {
  ++C.Functions;
  C.Loops += F.CF.Loops.size();
  OpcodeSlots Opcodes(C.Opcodes);
  for (uint32_t I = 0, E = F.Instructions.size(); I != E; ++I) {
    Count &Op = Opcodes[F.Instructions[I].Opcode];
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
