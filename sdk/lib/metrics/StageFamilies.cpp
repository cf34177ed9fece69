//===- StageFamilies.cpp - Every instruction of a stage, classified -------===//
//
// One pass numbers the distinct opcodes (a direct-mapped cache in front of
// a hash map: most instructions cost a few compares); each distinct opcode
// is then classified once. The last entry of Family and Mapping is
// NoFamily, for an instruction the module does not hold.
//
//===----------------------------------------------------------------------===//
#include "gestell/StageFamilies.h"

#include "llvm/ADT/DenseMap.h"

#include <array>
#include <cstring>

using namespace llvm;

namespace gestell {

namespace {
/// The opcodes a module repeats, in front of the map that numbers them: a
/// direct-mapped table keyed by the opcode's first and last eight bytes
/// and its length, so that most instructions cost a few compares instead
/// of a hash and a memcmp (an opcode of up to 16 bytes is all in those
/// words; a longer one is also compared in full).
class OpcodeSlots {
public:
  /// Op's number, or Miss(Op) (the map's lookup or insertion), which is
  /// then kept. Op's text must outlive the slots.
  template <typename MissFn> uint32_t get(StringRef Op, MissFn &&Miss) {
    Key K = keyOf(Op);
    // Two instructions in a row often share their opcode (two in three
    // of the sweep's PTX): the last one's slot is asked first.
    if (Last && Last->K == K && (Op.size() <= 16 || Last->Text == Op))
      return Last->Id;
    Slot &S = Slots[((K.Head * 0x9E3779B97F4A7C15ull) ^
                     (K.Tail * 0xC2B2AE3D27D4EB4Full) ^ Op.size()) >>
                    58];
    Last = &S;
    if (S.Used && S.K == K && (Op.size() <= 16 || S.Text == Op))
      return S.Id;
    uint32_t Id = Miss(Op);
    S = {K, Op, Id, true};
    return Id;
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
    uint32_t Id = 0;
    bool Used = false;
  };
  std::array<Slot, 64> Slots{};
  const Slot *Last = nullptr; ///< the slot the last opcode was found in
};
} // namespace

template <typename ModuleT> void StageFamilies::build(const ModuleT &M, Isa I) {
  DenseMap<StringRef, uint32_t> Ids;
  OpcodeSlots Cache;
  size_t N = 0;
  for (const auto &F : M.Functions)
    N += F.Instructions.size();
  OpcodeOf.reserve(N);
  for (const auto &F : M.Functions) {
    Spans.push_back({F.Instructions.data(),
                     F.Instructions.data() + F.Instructions.size(),
                     static_cast<uint32_t>(OpcodeOf.size())});
    size_t Base = OpcodeOf.size();
    OpcodeOf.resize(Base + F.Instructions.size());
    uint32_t *Out = OpcodeOf.data() + Base;
    for (const auto &Inst : F.Instructions)
      *Out++ = Cache.get(Inst.Opcode, [&](StringRef Op) {
        auto [It, New] = Ids.try_emplace(Op, Distinct.size());
        if (New)
          Distinct.push_back(Op);
        return It->second;
      });
  }
  Family.reserve(Distinct.size() + 1);
  Mapping.reserve(Distinct.size() + 1);
  for (StringRef Op : Distinct) {
    FamilyTable::Class C = Table->classOf(I, Op);
    Family.push_back(C.Family);
    Mapping.push_back(C.Mapping);
  }
  NoOpcode = Distinct.size();
  Family.push_back(NoFamily);
  Mapping.push_back(NoFamily);
}

StageFamilies::StageFamilies(const PtxModule &M, const FamilyTable &T)
    : Table(&T) {
  build(M, Isa::PTX);
}

StageFamilies::StageFamilies(const SassModule &M, const FamilyTable &T)
    : Table(&T) {
  build(M, Isa::SASS);
}

ArrayRef<uint32_t> StageFamilies::opcodeIds(size_t FunctionIndex) const {
  const Span &S = Spans[FunctionIndex];
  size_t End = FunctionIndex + 1 < Spans.size() ? Spans[FunctionIndex + 1].Base
                                                : OpcodeOf.size();
  return ArrayRef(OpcodeOf).slice(S.Base, End - S.Base);
}

unsigned StageFamilies::familyIndex(StringRef Id) const {
  return Table->indexOf(Id).value_or(NoFamily);
}

unsigned StageFamilies::mappingIndex(StringRef Id) const {
  ArrayRef<FamilyMapping> Maps = Table->mappings();
  for (unsigned I = 0; I < Maps.size(); ++I)
    if (Maps[I].Id == Id)
      return I;
  return NoFamily;
}

} // namespace gestell
