//===- InstructionCounts.cpp - Opcode and family counts of a stage --------===//
//
// One pass over the instructions fills the per-opcode counts (a StringMap
// while counting, or, where the stage is already classified, an array
// indexed by StageFamilies' distinct-opcode numbers); families are then
// summed per distinct opcode, so each opcode is classified once, and the
// counts are kept as a sorted vector whose texts are in one table for the
// run.
//
//===----------------------------------------------------------------------===//
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/StageFamilies.h"
#include "metrics/OpcodeSlots.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <mutex>

using namespace llvm;

namespace gestell {

namespace {
/// Counts F's instructions into the Count that Slot(I) gives instruction I.
template <typename FunctionT, typename SlotFn>
void countFunction(const FunctionT &F, StageCounts &C, SlotFn &&Slot) {
  ++C.Functions;
  C.Loops += F.CF.Loops.size();
  // A basic block's instructions are all in a loop or all outside one:
  // asked once per block, not once per instruction.
  const ControlFlow &CF = F.CF;
  for (uint32_t I = 0, E = F.Instructions.size(); I != E;) {
    uint32_t Stop = I + 1;
    if (I < CF.BlockOf.size()) {
      const BasicBlock &B = CF.Blocks[CF.BlockOf[I]];
      if (B.Begin <= I && I < B.End)
        Stop = std::min(B.End, E);
    }
    bool InLoop = CF.inLoop(I);
    for (; I != Stop; ++I) {
      Count &Op = Slot(I);
      ++Op.Total;
      Op.InLoops += InLoop;
    }
  }
}

/// One distinct opcode's count and family.
struct Tally {
  StringRef Opcode;
  Count N;
  unsigned Family = NoFamily;
};

/// The run's opcode texts, each once (they outlive every module).
using OpcodeTable = StringSet<BumpPtrAllocator>;
StringRef internOpcode(StringRef Op) {
  static std::mutex Lock;
  static OpcodeTable Table;
  std::lock_guard<std::mutex> G(Lock);
  return Table.insert(Op).first->getKey();
}

/// An interned opcode from its key data: the table's entry holds its length
/// (an opcode may hold any byte, NUL included).
StringRef internedText(const char *KeyData) {
  return OpcodeTable::value_type::GetStringMapEntryFromKeyData(KeyData)
      .getKey();
}

/// The families summed per distinct opcode, and the opcodes kept sorted.
void finish(StageCounts &C, ArrayRef<Tally> Tallies, size_t NumFamilies) {
  C.Families.assign(NumFamilies, Count());
  std::vector<OpcodeCount> Sorted;
  Sorted.reserve(Tallies.size());
  for (const Tally &T : Tallies) {
    C.Instructions += T.N;
    (T.Family == NoFamily ? C.Other : C.Families[T.Family]) += T.N;
    Sorted.push_back({T.Opcode, T.N});
  }
  llvm::sort(Sorted, [](const OpcodeCount &A, const OpcodeCount &B) {
    return A.Opcode < B.Opcode;
  });
  C.Opcodes = OpcodeCounts(Sorted);
}

template <typename ModuleT>
StageCounts countByOpcode(const ModuleT &M, Isa Of, const FamilyTable &Table) {
  StageCounts C;
  C.Of = Of;
  StringMap<Count> Map;
  for (const auto &F : M.Functions) {
    // Entries of a StringMap do not move when it grows.
    OpcodeSlots<Count *> Opcodes;
    countFunction(F, C, [&](uint32_t I) -> Count & {
      return *Opcodes.get(F.Instructions[I].Opcode,
                          [&](StringRef Op) { return &Map[Op]; });
    });
  }
  std::vector<Tally> Tallies;
  Tallies.reserve(Map.size());
  for (const auto &E : Map)
    Tallies.push_back({E.first(), E.second, Table.classify(Of, E.first())});
  finish(C, Tallies, Table.families().size());
  return C;
}

template <typename ModuleT>
StageCounts countById(const ModuleT &M, Isa Of, const StageFamilies &SF) {
  StageCounts C;
  C.Of = Of;
  ArrayRef<StringRef> Opcodes = SF.opcodes();
  std::vector<Tally> Tallies(Opcodes.size());
  for (size_t K = 0; K < M.Functions.size(); ++K) {
    ArrayRef<uint32_t> Ids = SF.opcodeIds(K);
    countFunction(M.Functions[K], C,
                  [&](uint32_t I) -> Count & { return Tallies[Ids[I]].N; });
  }
  for (uint32_t Id = 0; Id < Opcodes.size(); ++Id) {
    Tallies[Id].Opcode = Opcodes[Id];
    Tallies[Id].Family = SF.opcodeFamily(Id);
  }
  finish(C, Tallies, SF.table().families().size());
  return C;
}

uint64_t neverExecuted(const SassModule &M) {
  uint64_t N = 0;
  for (const SassFunction &F : M.Functions)
    N += F.NeverExecuted;
  return N;
}
} // namespace

OpcodeCounts::OpcodeCounts(ArrayRef<OpcodeCount> Sorted) {
  auto Narrow = [](uint64_t N) { // below 2^32: see the class comment
    return uint32_t(std::min<uint64_t>(N, UINT32_MAX));
  };
  Entries.reserve(Sorted.size());
  for (const OpcodeCount &E : Sorted)
    Entries.push_back({internOpcode(E.Opcode).data(), Narrow(E.N.Total),
                       Narrow(E.N.InLoops)});
}

OpcodeCount OpcodeCounts::expand(const Entry &E) {
  return {internedText(E.Text), Count{E.Total, E.InLoops}};
}

Count OpcodeCounts::lookup(StringRef Opcode) const {
  auto It = llvm::partition_point(
      Entries, [&](const Entry &E) { return internedText(E.Text) < Opcode; });
  return It != Entries.end() && internedText(It->Text) == Opcode
             ? Count{It->Total, It->InLoops}
             : Count();
}

StageCounts countInstructions(const PtxModule &M, const FamilyTable &Table) {
  return countByOpcode(M, Isa::PTX, Table);
}

StageCounts countInstructions(const SassModule &M, const FamilyTable &Table) {
  StageCounts C = countByOpcode(M, Isa::SASS, Table);
  C.NeverExecuted = neverExecuted(M);
  return C;
}

StageCounts countInstructions(const PtxModule &M, const StageFamilies &F) {
  return countById(M, Isa::PTX, F);
}

StageCounts countInstructions(const SassModule &M, const StageFamilies &F) {
  StageCounts C = countById(M, Isa::SASS, F);
  C.NeverExecuted = neverExecuted(M);
  return C;
}

} // namespace gestell
