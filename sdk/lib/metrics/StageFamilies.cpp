//===- StageFamilies.cpp - Every instruction of a stage, classified -------===//
//
// One pass numbers the distinct opcodes (OpcodeSlots in front of a hash
// map: most instructions cost a few compares); each distinct opcode is
// then classified once. The last entry of Family
// and Mapping is NoFamily, for an instruction the module does not hold.
//
//===----------------------------------------------------------------------===//
#include "gestell/StageFamilies.h"
#include "metrics/OpcodeSlots.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace gestell {

template <typename ModuleT> void StageFamilies::build(const ModuleT &M, Isa I) {
  DenseMap<StringRef, uint32_t> Ids;
  OpcodeSlots<uint32_t> Cache;
  size_t N = 0;
  for (const auto &F : M.Functions)
    N += F.Instructions.size();
  OpcodeOf.reserve(N);
  for (const auto &F : M.Functions) {
    Spans.push_back({F.Instructions.data(),
                     F.Instructions.data() + F.Instructions.size(),
                     static_cast<uint32_t>(OpcodeOf.size())});
    for (const auto &Inst : F.Instructions)
      OpcodeOf.push_back(Cache.get(Inst.Opcode, [&](StringRef Op) {
        auto [It, New] = Ids.try_emplace(Op, Distinct.size());
        if (New)
          Distinct.push_back(Op);
        return It->second;
      }));
  }
  Family.reserve(Distinct.size() + 1);
  Mapping.reserve(Distinct.size() + 1);
  for (StringRef Op : Distinct) {
    Family.push_back(Table->classify(I, Op));
    Mapping.push_back(Table->mappingOf(I, Op));
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
