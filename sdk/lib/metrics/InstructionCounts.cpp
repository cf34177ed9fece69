//===- InstructionCounts.cpp - Opcode and family counts of a stage --------===//
//
// One pass over the instructions fills the per-opcode counts (a StringMap
// while counting); families are then summed per distinct opcode, so each
// opcode is classified once, and the counts are kept as a sorted vector
// whose texts are in one table for the run.
//
//===----------------------------------------------------------------------===//
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

using namespace llvm;

namespace gestell {

namespace {
/// The opcodes a run of instructions repeats, in front of the StringMap: a
/// direct-mapped table keyed by the opcode's first and last eight bytes
/// and its length, so that most instructions cost a few compares instead of
/// a hash and a memcmp (an opcode of up to 16 bytes is all in those words).
class OpcodeSlots {
public:
  explicit OpcodeSlots(StringMap<Count> &Map) : Map(Map) {}
  Count &operator[](StringRef Op) {
    Key K = keyOf(Op);
    Slot &S = Slots[((K.Head * 0x9E3779B97F4A7C15ull) ^
                     (K.Tail * 0xC2B2AE3D27D4EB4Full) ^ Op.size()) >>
                    58];
    if (S.Value && S.K == K && (Op.size() <= 16 || S.Text == Op))
      return *S.Value;
    Count &C = Map[Op]; // entries do not move when the map grows
    S = {K, Op, &C};
    return C;
  }

private:
  struct Key {
    uint64_t Head = 0, Tail = 0, Size = 0;
    bool operator==(const Key &) const = default;
  };
  static Key keyOf(StringRef Op) {
    Key K;
    K.Size = Op.size();
    if (Op.size() >= 8) {
      std::memcpy(&K.Head, Op.data(), 8);
      std::memcpy(&K.Tail, Op.data() + Op.size() - 8, 8);
    } else if (Op.size() >= 4) { // "mov.b32": two words that overlap
      uint32_t A, B;
      std::memcpy(&A, Op.data(), 4);
      std::memcpy(&B, Op.data() + Op.size() - 4, 4);
      K.Head = A | uint64_t(B) << 32;
    } else {
      for (char C : Op)
        K.Head = K.Head << 8 | static_cast<unsigned char>(C);
    }
    return K;
  }
  struct Slot {
    Key K;
    StringRef Text;
    Count *Value = nullptr;
  };
  StringMap<Count> &Map;
  std::array<Slot, 64> Slots;
};

template <typename FunctionT>
void countFunction(const FunctionT &F, StageCounts &C, StringMap<Count> &Map) {
  ++C.Functions;
  C.Loops += F.CF.Loops.size();
  OpcodeSlots Opcodes(Map);
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
      Count &Op = Opcodes[F.Instructions[I].Opcode];
      ++Op.Total;
      Op.InLoops += InLoop;
    }
  }
}

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
void finish(StageCounts &C, const StringMap<Count> &Map,
            const FamilyTable &Table) {
  C.Families.assign(Table.families().size(), Count());
  std::vector<OpcodeCount> Sorted;
  Sorted.reserve(Map.size());
  for (const auto &E : Map) {
    C.Instructions += E.second;
    unsigned F = Table.classify(C.Of, E.first());
    (F == NoFamily ? C.Other : C.Families[F]) += E.second;
    Sorted.push_back({E.first(), E.second});
  }
  llvm::sort(Sorted, [](const OpcodeCount &A, const OpcodeCount &B) {
    return A.Opcode < B.Opcode;
  });
  C.Opcodes = OpcodeCounts(Sorted);
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
  StageCounts C;
  C.Of = Isa::PTX;
  StringMap<Count> Map;
  for (const PtxFunction &F : M.Functions)
    countFunction(F, C, Map);
  finish(C, Map, Table);
  return C;
}

StageCounts countInstructions(const SassModule &M, const FamilyTable &Table) {
  StageCounts C;
  C.Of = Isa::SASS;
  StringMap<Count> Map;
  for (const SassFunction &F : M.Functions) {
    countFunction(F, C, Map);
    C.NeverExecuted += F.NeverExecuted;
  }
  finish(C, Map, Table);
  return C;
}

} // namespace gestell
