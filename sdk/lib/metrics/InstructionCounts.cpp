//===- InstructionCounts.cpp - Opcode and family counts of a stage --------===//
//
// The stage's classification (StageFamilies: the view's, or one made for
// the table asked for) numbers the distinct opcodes and gives each one's
// family; one pass over the instructions then fills an array of counts
// indexed by those numbers, families are summed per distinct opcode, and
// the counts are kept as a sorted vector whose texts are in one table for
// the run.
//
//===----------------------------------------------------------------------===//
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/StageFamilies.h"
#include "metrics/CalledInLoops.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <mutex>

using namespace llvm;

namespace gestell {

namespace {
/// One distinct opcode's count and family.
struct Tally {
  StringRef Opcode;
  Count N;
  unsigned Family = NoFamily;
};

/// Counts F's instructions into the Tally of each one's opcode number.
/// Called: the instructions a call inside a loop runs (CalledInLoops.h),
/// in loops too; null when none.
template <typename FunctionT>
void countFunction(const FunctionT &F, ArrayRef<uint32_t> Ids,
                   const BitVector *Called, std::vector<Tally> &Tallies,
                   StageCounts &C) {
  ++C.Functions;
  C.Loops += F.CF.Loops.size();
  // A basic block's instructions are all in a loop or all outside one:
  // asked once per block, not once per instruction (Called marks whole
  // blocks too).
  const ControlFlow &CF = F.CF;
  for (uint32_t I = 0, E = F.Instructions.size(); I != E;) {
    uint32_t Stop = I + 1;
    if (I < CF.BlockOf.size()) {
      const BasicBlock &B = CF.Blocks[CF.BlockOf[I]];
      if (B.Begin <= I && I < B.End)
        Stop = std::min(B.End, E);
    }
    bool InLoop = CF.inLoop(I) || (Called && Called->test(I));
    for (; I != Stop; ++I) {
      Count &Op = Tallies[Ids[I]].N;
      ++Op.Total;
      Op.InLoops += InLoop;
    }
  }
}

/// The run's opcode texts, each once (they outlive every module): a
/// stage's are interned together, under one lock.
using OpcodeTable = StringSet<BumpPtrAllocator>;
template <typename Fn> void withOpcodeTable(Fn &&Use) {
  static std::mutex Lock;
  static OpcodeTable Table;
  std::lock_guard<std::mutex> G(Lock);
  Use(Table);
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
StageCounts countById(const ModuleT &M, Isa Of, const StageFamilies &SF) {
  StageCounts C;
  C.Of = Of;
  ArrayRef<StringRef> Opcodes = SF.opcodes();
  std::vector<Tally> Tallies(Opcodes.size());
  std::vector<BitVector> Called = calledInLoops(M);
  for (size_t K = 0; K < M.Functions.size(); ++K)
    countFunction(M.Functions[K], SF.opcodeIds(K),
                  K < Called.size() && Called[K].any() ? &Called[K] : nullptr,
                  Tallies, C);
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
  withOpcodeTable([&](OpcodeTable &Table) {
    for (const OpcodeCount &E : Sorted)
      Entries.push_back({Table.insert(E.Opcode).first->getKey().data(),
                         Narrow(E.N.Total), Narrow(E.N.InLoops)});
  });
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
  return countInstructions(M, StageFamilies(M, Table));
}

StageCounts countInstructions(const SassModule &M, const FamilyTable &Table) {
  return countInstructions(M, StageFamilies(M, Table));
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
